import { ADMIN, AppError, toConnection, type GraphQLContribution, type QhatuGraphQLContext } from '@qhatu/core';
import { z } from 'zod';
import { amountDue } from '../services/ledger.js';
import { OrderReads, type OrderView } from '../services/order-reads.js';
import { analyticsResolver, analyticsTypeDefs } from './analytics.js';

const typeDefs = `
  enum OrderStatus { pending confirmed paid ready_to_ship in_transit partially_fulfilled fulfilled cancelled refunded }
  "A line as it was bought; price is the unit price in minor units, taxRate basis points, taxAmount the line's tax."
  type OrderLineItem { title: String!, quantity: Int!, price: Int!, taxRate: Int!, taxAmount: Int! }
  "Amounts in minor units; total adds taxTotal only when pricesIncludeTax is false. amountDue is what is left to pay while the order awaits payment (pending or confirmed, or shipped before it was paid): total − amountWaived − (amountPaid − amountRefunded); 0 otherwise."
  type Order { id: ID!, number: Int!, status: OrderStatus!, subtotal: Int!, discountTotal: Int!, shippingTotal: Int!, taxTotal: Int!, pricesIncludeTax: Boolean!, total: Int!, amountPaid: Int!, amountRefunded: Int!, amountWaived: Int!, amountDue: Int!, currency: String!, createdAt: String!, paidAt: String, lineItems: [OrderLineItem!]! }
  type OrderEdge { node: Order!, cursor: String! }
  type OrderConnection { edges: [OrderEdge!]!, pageInfo: PageInfo! }
  extend type Query {
    "The signed-in customer's orders, newest first (customer token)."
    orders(limit: Int, cursor: String): OrderConnection!
  }
`;

const OrdersArgs = z.object({
  limit: z.number().int().min(1, 'limit must be at least 1').nullish(),
  cursor: z.string().min(1).max(512).nullish(),
});

function node({ order, lines }: OrderView) {
  return {
    id: order.id,
    number: order.number,
    status: order.status,
    subtotal: order.subtotal,
    discountTotal: order.discountTotal,
    shippingTotal: order.shippingTotal,
    taxTotal: order.taxTotal,
    pricesIncludeTax: order.pricesIncludeTax,
    total: order.total,
    amountPaid: order.amountPaid,
    amountRefunded: order.amountRefunded,
    amountWaived: order.amountWaived,
    amountDue: amountDue(order),
    currency: order.currency,
    createdAt: order.createdAt.toISOString(),
    paidAt: order.paidAt?.toISOString() ?? null,
    // Resolved by core's `Order.customFields` (when fields are declared): the caller sees what it may.
    customFields: order.customFields,
    lineItems: lines.map((l) => ({ title: l.title, quantity: l.quantity, price: l.unitPriceAmount, taxRate: l.taxRate, taxAmount: l.taxAmount })),
  };
}

export const orderGraphQL: GraphQLContribution = {
  typeDefs: typeDefs + analyticsTypeDefs,
  access: {
    Query: {
      orders: { auth: ['customer'] },
      // Sales figures are the orders' own: the permission that reads them (GET /orders) reads these.
      analytics: { auth: ADMIN, permission: 'orders.read' },
    },
  },
  resolvers: {
    Query: {
      orders: async (_: unknown, raw: unknown, ctx: QhatuGraphQLContext) => {
        const { principal } = ctx;
        if (!principal.subjectId) throw AppError.unauthenticated('This token does not name a customer');
        const parsed = OrdersArgs.safeParse(raw);
        if (!parsed.success) throw AppError.validation(parsed.error.issues.map((i) => i.message).join('; '));
        const args = parsed.data;
        const { views, page } = await ctx.container.resolve(OrderReads).list(
          { limit: Math.min(args.limit ?? 25, 100), cursor: args.cursor ?? undefined, sort: '-created_at' },
          { ownerId: principal.subjectId },
        );
        const byId = new Map(views.map((v) => [v.order.id, v]));
        return toConnection(page, (o) => node(byId.get(o.id)!), args.cursor ?? undefined);
      },
      analytics: analyticsResolver,
    },
  },
};
