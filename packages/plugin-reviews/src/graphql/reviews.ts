import { AppError, isAppError, STOREFRONT, type GraphQLContribution, type QhatuGraphQLContext } from '@qhatu/core';
import { z } from 'zod';
import { Rating } from '../schemas/review.js';
import { Reviews } from '../services/reviews.js';

const typeDefs = `
  enum ReviewStatus { pending approved rejected }
  "A product review; title and body are plain text."
  type Review { id: ID!, productId: ID!, rating: Int!, title: String, body: String, status: ReviewStatus!, verifiedPurchase: Boolean! }
  input CreateReviewInput { productId: ID!, rating: Int!, title: String, body: String, "The customer's paid order that holds the product (a verified purchase)." orderId: ID }
  extend type Mutation {
    "Writes a review as the signed-in customer (customer token); it waits in pending until moderated."
    createReview(input: CreateReviewInput!): Review!
  }
`;

const CreateReviewInput = z.strictObject({
  productId: z.uuid({ message: 'must be a UUID' }),
  rating: Rating,
  title: z.string().max(200, 'must be at most 200 characters').nullish(),
  body: z.string().max(5000, 'must be at most 5000 characters').nullish(),
  orderId: z.uuid({ message: 'must be a UUID' }).nullish(),
});

/** GraphQL names an unknown product or order RESOURCE_NOT_FOUND (REST: a 422 of the body's reference). */
const UNKNOWN_REFERENCES = new Set(['PRODUCT_NOT_FOUND', 'ORDER_NOT_FOUND', 'CUSTOMER_NOT_FOUND']);
function asResourceNotFound(error: unknown): never {
  if (isAppError(error) && error.status === 422 && UNKNOWN_REFERENCES.has(error.code)) throw new AppError(404, 'RESOURCE_NOT_FOUND', error.message, error.details);
  throw error;
}

export const reviewGraphQL: GraphQLContribution = {
  typeDefs,
  // Callers other than a customer are admitted to be told to sign in as one (UNAUTHENTICATED).
  access: { Mutation: { createReview: { auth: STOREFRONT } } },
  resolvers: {
    Mutation: {
      createReview: async (_: unknown, args: { input: unknown }, ctx: QhatuGraphQLContext) => {
        const customerId = ctx.principal.kind === 'customer' ? ctx.principal.subjectId : null;
        if (!customerId) throw AppError.unauthenticated('Sign in as a customer to write a review');
        const parsed = CreateReviewInput.safeParse(args.input);
        if (!parsed.success) throw AppError.validation(parsed.error.issues.map((i) => `input.${i.path.join('.')}: ${i.message}`).join('; '));
        const input = parsed.data;
        const review = await ctx.container
          .resolve(Reviews)
          .submit(
            { product_id: input.productId, customer_id: customerId, order_id: input.orderId, rating: input.rating, title: input.title, body: input.body },
            { kind: 'customer', customerId },
          )
          .catch(asResourceNotFound);
        return {
          id: review.id,
          productId: review.productId,
          rating: review.rating,
          title: review.title,
          body: review.body,
          status: review.status,
          verifiedPurchase: review.verifiedPurchase,
        };
      },
    },
  },
};
