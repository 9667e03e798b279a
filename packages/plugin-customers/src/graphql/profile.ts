import { AppError, LocaleTag, type GraphQLContribution, type QhatuGraphQLContext } from '@qhatu/core';
import { z } from 'zod';
import type { Customer } from '../entities/customer.js';
import { PersonName, Phone } from '../schemas/common.js';
import { Customers } from '../services/customers.js';

const typeDefs = `
  "A customer of the store, as the customer sees themselves."
  type Customer { id: ID!, email: String!, firstName: String, lastName: String, phone: String, "The locale the store writes to the customer in; null: the store's default." locale: String }
  "Only the fields given change; null clears one. locale: one of the store's locales (LOCALE_NOT_LISTED otherwise)."
  input UpdateProfileInput { firstName: String, lastName: String, phone: String, locale: String }
  extend type Mutation {
    "Changes the signed-in customer's names and phone (customer token)."
    updateProfile(input: UpdateProfileInput!): Customer!
  }
`;

const ProfileInput = z.strictObject({
  firstName: PersonName.nullish(),
  lastName: PersonName.nullish(),
  phone: Phone.nullish(),
  locale: LocaleTag.nullish(),
});

function node(c: Customer) {
  // customFields: resolved by core's `Customer.customFields` (when fields are declared), the public ones for the customer.
  return { id: c.id, email: c.email, firstName: c.firstName || null, lastName: c.lastName || null, phone: c.phone ?? null, locale: c.locale ?? null, customFields: c.customFields };
}

export const profileGraphQL: GraphQLContribution = {
  typeDefs,
  access: { Mutation: { updateProfile: { auth: ['customer'] } } },
  resolvers: {
    Mutation: {
      updateProfile: async (_: unknown, args: { input: unknown }, ctx: QhatuGraphQLContext) => {
        const { principal } = ctx;
        if (!principal.subjectId) throw AppError.unauthenticated('This token does not name a customer');
        const parsed = ProfileInput.safeParse(args.input);
        if (!parsed.success) {
          throw AppError.validation(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
        }
        const input = parsed.data;
        const customer = await ctx.container.resolve(Customers).updateProfile(principal.subjectId, {
          first_name: input.firstName,
          last_name: input.lastName,
          phone: input.phone,
          locale: input.locale,
        });
        return node(customer);
      },
    },
  },
};
