import { AppError, toConnection, type GraphQLContribution, type QhatuGraphQLContext } from '@qhatu/core';
import { z } from 'zod';
import { CLAIM_RESOLUTIONS, CLAIM_TYPES, REFUND_METHODS, RETURN_KINDS, RETURN_STATUSES } from '../entities/return.js';
import { ReturnCreate } from '../schemas/return.js';
import { customerCaller } from '../services/common.js';
import { ReturnReads, type ReturnView } from '../services/reads.js';
import { ReturnRequests } from '../services/requests.js';

const typeDefs = `
  enum ReturnKind { ${RETURN_KINDS.join(' ')} }
  enum ReturnStatus { ${RETURN_STATUSES.join(' ')} }
  enum ClaimType { ${CLAIM_TYPES.join(' ')} }
  enum ClaimResolution { ${CLAIM_RESOLUTIONS.join(' ')} }
  enum RefundMethod { ${REFUND_METHODS.join(' ')} }
  "A returned (or claimed) line of an order, or an exchange's new item (lineItemId null). Amounts in minor units."
  type ReturnLine { id: ID!, lineItemId: ID, variantId: ID, title: String!, quantity: Int!, reasonCode: String, receivedQuantity: Int!, restockedQuantity: Int!, damagedQuantity: Int!, refundAmount: Int!, taxAmount: Int!, shippedQuantity: Int! }
  "A return, exchange or claim of an order; refundAmount is what goes back to the customer (accountAmount of it off what a company owes for an order on account)."
  type Return { id: ID!, name: String!, orderId: ID!, kind: ReturnKind!, status: ReturnStatus!, claimType: ClaimType, resolution: ClaimResolution, currency: String!, refundMethod: RefundMethod, itemsAmount: Int!, shippingAmount: Int!, newItemsAmount: Int!, refundAmount: Int!, accountAmount: Int!, amountDue: Int!, createdAt: String!, updatedAt: String!, lines: [ReturnLine!]! }
  type ReturnEdge { node: Return!, cursor: String! }
  type ReturnConnection { edges: [ReturnEdge!]!, pageInfo: PageInfo! }
  input ReturnLineInput { lineItemId: ID!, quantity: Int!, reasonCode: String, note: String }
  input ReturnNewItemInput { variantId: ID!, quantity: Int! }
  input ReturnRequestInput { orderId: ID!, kind: ReturnKind, lines: [ReturnLineInput!]!, reasonCode: String, note: String, newItems: [ReturnNewItemInput!], claimType: ClaimType, resolution: ClaimResolution, refundMethod: RefundMethod }
  extend type Order {
    "What of the order was returned, exchanged or claimed."
    returns: [Return!]!
  }
  extend type Query {
    "A return of the store (returns.read)."
    return(id: ID!): Return
    "The store's returns, newest first (returns.read)."
    returns(status: ReturnStatus, kind: ReturnKind, orderId: ID, limit: Int, cursor: String): ReturnConnection!
    "The signed-in customer's returns, newest first (customer token)."
    myReturns(limit: Int, cursor: String): ReturnConnection!
  }
  extend type Mutation {
    "Ask to return, exchange or claim items of one of the signed-in customer's orders (customer token)."
    requestReturn(input: ReturnRequestInput!): Return!
  }
`;

const ListArgs = z.object({
  status: z.enum(RETURN_STATUSES).nullish(),
  kind: z.enum(RETURN_KINDS).nullish(),
  orderId: z.uuid({ message: 'orderId must be a UUID' }).nullish(),
  limit: z.number().int().min(1, 'limit must be at least 1').nullish(),
  cursor: z.string().min(1).max(512).nullish(),
});
const Id = z.uuid({ message: 'id must be a UUID' });

function node({ ret: r, lines }: ReturnView) {
  return {
    id: r.id, name: `R${r.number}`, orderId: r.orderId, kind: r.kind, status: r.status, claimType: r.claimType ?? null, resolution: r.resolution ?? null,
    currency: r.currency.trim(), refundMethod: r.refundMethod ?? null, itemsAmount: r.itemsAmount, shippingAmount: r.shippingAmount, newItemsAmount: r.newItemsAmount,
    refundAmount: r.refundAmount, accountAmount: r.accountAmount, amountDue: r.amountDue, createdAt: r.createdAt.toISOString(), updatedAt: r.updatedAt.toISOString(),
    lines: lines.map((l) => ({
      id: l.id, lineItemId: l.lineItemId ?? null, variantId: l.variantId ?? null, title: l.title, quantity: l.quantity, reasonCode: l.reasonCode ?? null,
      receivedQuantity: l.receivedQuantity, restockedQuantity: l.restockedQuantity, damagedQuantity: l.damagedQuantity, refundAmount: l.refundAmount,
      taxAmount: l.taxAmount, shippedQuantity: l.shippedQuantity,
    })),
  };
}

const invalid = (error: z.ZodError) => AppError.validation(error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; '));

/** Reading returns and asking for one, with the REST routes' rules. */
export const returnGraphQL: GraphQLContribution = {
  typeDefs,
  access: {
    Query: {
      return: { auth: ['admin'], permission: 'returns.read' },
      returns: { auth: ['admin'], permission: 'returns.read' },
      myReturns: { auth: ['customer'] },
    },
    Mutation: {
      requestReturn: { auth: ['customer'] },
    },
  },
  resolvers: {
    Order: {
      returns: async (order: { id: string }, _args: unknown, ctx: QhatuGraphQLContext) => {
        // Staff need returns.read for it, as for the REST read; customers see their own orders only.
        if (ctx.principal.kind === 'staff' || ctx.principal.kind === 'admin') ctx.requirePermission('returns.read');
        const { views } = await ctx.container.resolve(ReturnReads).ofOrder(order.id, { limit: 100 }, customerCaller());
        return views.map(node);
      },
    },
    Query: {
      return: async (_: unknown, raw: { id: unknown }, ctx: QhatuGraphQLContext) => {
        const id = Id.safeParse(raw.id);
        if (!id.success) throw AppError.validation(id.error.issues[0].message);
        try {
          return node(await ctx.container.resolve(ReturnReads).get(id.data));
        } catch (error) {
          if (error instanceof AppError && error.status === 404) return null;
          throw error;
        }
      },
      myReturns: async (_: unknown, raw: unknown, ctx: QhatuGraphQLContext) => {
        const parsed = ListArgs.pick({ limit: true, cursor: true }).safeParse(raw);
        if (!parsed.success) throw invalid(parsed.error);
        const args = parsed.data;
        const { views, page } = await ctx.container.resolve(ReturnReads).list(
          { limit: Math.min(args.limit ?? 25, 100), cursor: args.cursor ?? undefined, sort: '-created_at' },
          { ownerId: customerCaller() },
        );
        return toConnection({ ...page, items: views, cursorOf: (v: ReturnView) => page.cursorOf(v.ret) }, node, args.cursor ?? undefined);
      },
      returns: async (_: unknown, raw: unknown, ctx: QhatuGraphQLContext) => {
        const parsed = ListArgs.safeParse(raw);
        if (!parsed.success) throw invalid(parsed.error);
        const args = parsed.data;
        const { views, page } = await ctx.container.resolve(ReturnReads).list(
          { limit: Math.min(args.limit ?? 25, 100), cursor: args.cursor ?? undefined, sort: '-created_at' },
          { status: args.status ?? undefined, kind: args.kind ?? undefined, order_id: args.orderId ?? undefined },
        );
        return toConnection({ ...page, items: views, cursorOf: (v: ReturnView) => page.cursorOf(v.ret) }, node, args.cursor ?? undefined);
      },
    },
    Mutation: {
      requestReturn: async (_: unknown, { input }: { input: Record<string, any> }, ctx: QhatuGraphQLContext) => {
        const parsed = ReturnCreate.safeParse({
          order_id: input.orderId, kind: input.kind ?? undefined, reason_code: input.reasonCode ?? undefined, note: input.note ?? undefined,
          lines: (input.lines ?? []).map((l: Record<string, any>) => ({ line_item_id: l.lineItemId, quantity: l.quantity, reason_code: l.reasonCode ?? undefined, note: l.note ?? undefined })),
          new_items: input.newItems?.map((i: Record<string, any>) => ({ variant_id: i.variantId, quantity: i.quantity })),
          claim_type: input.claimType ?? undefined, resolution: input.resolution ?? undefined, refund_method: input.refundMethod ?? undefined,
        });
        if (!parsed.success) throw invalid(parsed.error);
        const created = await ctx.container.resolve(ReturnRequests).create(parsed.data);
        return node(await ctx.container.resolve(ReturnReads).get(created.id, customerCaller()));
      },
    },
  },
};
