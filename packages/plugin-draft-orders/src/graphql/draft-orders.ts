import { ADMIN, AppError, toConnection, type GraphQLContribution, type QhatuGraphQLContext } from '@qhatu/core';
import { z } from 'zod';
import { DRAFT_ORDER_STATUSES, type DraftOrder } from '../entities/draft-order.js';
import { DraftReads } from '../services/reads.js';

const typeDefs = `
  enum DraftOrderStatus { ${DRAFT_ORDER_STATUSES.join(' ')} }
  "A line of a draft; amounts in minor units. variantId is null for a custom line; offerId (a seller's offer) is null for the store's own stock."
  type DraftOrderLine { id: ID!, variantId: ID, offerId: ID, title: String!, quantity: Int!, unitPrice: Int!, discountAmount: Int!, taxAmount: Int!, total: Int! }
  "An order staff are building; total adds taxTotal only when pricesIncludeTax is false."
  type DraftOrder { id: ID!, name: String!, status: DraftOrderStatus!, customerId: ID, email: String, currency: String!, subtotal: Int!, discountTotal: Int!, shippingTotal: Int!, taxTotal: Int!, pricesIncludeTax: Boolean!, total: Int!, orderId: ID, invoiceUrl: String, createdAt: String!, updatedAt: String!, lineItems: [DraftOrderLine!]! }
  type DraftOrderEdge { node: DraftOrder!, cursor: String! }
  type DraftOrderConnection { edges: [DraftOrderEdge!]!, pageInfo: PageInfo! }
  extend type Query {
    "A draft order (draft-orders.read)."
    draftOrder(id: ID!): DraftOrder
    "Draft orders, newest first, of one status when given (draft-orders.read)."
    draftOrders(status: DraftOrderStatus, limit: Int, cursor: String): DraftOrderConnection!
  }
`;

const ListArgs = z.object({
  status: z.enum(DRAFT_ORDER_STATUSES).nullish(),
  limit: z.number().int().min(1, 'limit must be at least 1').nullish(),
  cursor: z.string().min(1).max(512).nullish(),
});
const Id = z.uuid({ message: 'id must be a UUID' });

function node(d: DraftOrder) {
  return {
    id: d.id, name: `D${d.number}`, status: d.status, customerId: d.customerId ?? null, email: d.email ?? null, currency: d.currency.trim(),
    subtotal: d.subtotal, discountTotal: d.discountTotal, shippingTotal: d.shippingTotal, taxTotal: d.taxTotal, pricesIncludeTax: d.pricesIncludeTax,
    total: d.total, orderId: d.orderId ?? null, invoiceUrl: d.invoiceUrl ?? null, createdAt: d.createdAt.toISOString(), updatedAt: d.updatedAt.toISOString(),
    lineItems: d.lines.map((l) => ({ id: l.id, variantId: l.variant_id, offerId: l.offer_id ?? null, title: l.title, quantity: l.quantity, unitPrice: l.unit_price, discountAmount: l.discount_amount, taxAmount: l.tax_amount, total: l.total })),
  };
}

/** Reading drafts, as the REST reads do; changes go through REST. */
export const draftOrderGraphQL: GraphQLContribution = {
  typeDefs,
  access: {
    Query: {
      draftOrder: { auth: ADMIN, permission: 'draft-orders.read' },
      draftOrders: { auth: ADMIN, permission: 'draft-orders.read' },
    },
  },
  resolvers: {
    Query: {
      draftOrder: async (_: unknown, raw: { id: unknown }, ctx: QhatuGraphQLContext) => {
        const id = Id.safeParse(raw.id);
        if (!id.success) throw AppError.validation(id.error.issues[0].message);
        try {
          return node(await ctx.container.resolve(DraftReads).get(id.data));
        } catch (error) {
          if (error instanceof AppError && error.status === 404) return null;
          throw error;
        }
      },
      draftOrders: async (_: unknown, raw: unknown, ctx: QhatuGraphQLContext) => {
        const parsed = ListArgs.safeParse(raw);
        if (!parsed.success) throw AppError.validation(parsed.error.issues.map((i) => i.message).join('; '));
        const args = parsed.data;
        const page = await ctx.container.resolve(DraftReads).list(
          { limit: Math.min(args.limit ?? 25, 100), cursor: args.cursor ?? undefined, sort: '-created_at' },
          { status: args.status ?? undefined },
        );
        return toConnection(page, node, args.cursor ?? undefined);
      },
    },
  },
};
