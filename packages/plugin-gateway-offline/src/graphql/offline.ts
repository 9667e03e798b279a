import { ADMIN, AppError, CurrencyCode, STOREFRONT, toConnection, type GraphQLContribution, type QhatuGraphQLContext } from '@qhatu/core';
import { z } from 'zod';
import type { OfflineMethod } from '../entities/method.js';
import type { OfflineReceipt } from '../entities/receipt.js';
import { ReceiptInput } from '../schemas/receipt.js';
import { OfflineMethods } from '../services/methods.js';
import { OfflineReceipts, type OfflinePaymentView } from '../services/receipts.js';

const typeDefs = `
  enum OfflineMethodKind { cash_on_delivery bank_transfer wallet }
  "A way the store takes money outside any provider; instructions are plain text for the shopper."
  type OfflinePaymentMethod { id: ID!, name: String!, kind: OfflineMethodKind!, instructions: String!, currencies: [String!]!, enabled: Boolean!, position: Int!, createdAt: String!, updatedAt: String! }
  type OfflinePaymentMethodEdge { node: OfflinePaymentMethod!, cursor: String! }
  type OfflinePaymentMethodConnection { edges: [OfflinePaymentMethodEdge!]!, pageInfo: PageInfo! }
  "Money received for an offline payment (minor units); a voided one no longer counts."
  type OfflineReceipt { id: ID!, paymentId: ID!, orderId: ID!, methodId: ID!, amount: Int!, currency: String!, reference: String, note: String, receivedAt: String!, recordedBy: ID, voidedAt: String, voidReason: String, createdAt: String! }
  type OfflineReceiptEdge { node: OfflineReceipt!, cursor: String! }
  type OfflineReceiptConnection { edges: [OfflineReceiptEdge!]!, pageInfo: PageInfo! }
  "An offline payment and what was received of it."
  type OfflinePaymentStanding { paymentId: ID!, orderId: ID!, status: String!, amount: Int!, currency: String!, receivedAmount: Int!, outstandingAmount: Int! }
  type OfflineReceiptRecorded { receipt: OfflineReceipt!, payment: OfflinePaymentStanding! }
  input RecordOfflineReceiptInput { paymentId: ID!, amount: Int!, reference: String, note: String, "ISO 8601 with its offset; now when left out." receivedAt: String }
  extend type Query {
    "The store's offline payment methods, in the storefront's order (payments.read)."
    offlinePaymentMethods(limit: Int, cursor: String): OfflinePaymentMethodConnection!
    "The offline methods a shopper may pay an order in this currency with, with their instructions."
    availableOfflinePaymentMethods(currency: String!): [OfflinePaymentMethod!]!
    "Receipts of offline payments, newest first; of one payment when paymentId is given (payments.read)."
    offlineReceipts(paymentId: ID, limit: Int, cursor: String): OfflineReceiptConnection!
  }
  extend type Mutation {
    "Records money received for a pending offline payment; the receipt that completes its amount pays it (payments.capture)."
    recordOfflineReceipt(input: RecordOfflineReceiptInput!): OfflineReceiptRecorded!
    "Voids a receipt of a pending payment: it no longer counts (payments.capture)."
    voidOfflineReceipt(id: ID!, reason: String!): OfflineReceiptRecorded!
  }
`;

const PageArgs = z.object({
  limit: z.number().int().min(1, 'limit must be at least 1').nullish(),
  cursor: z.string().min(1).max(512).nullish(),
});
const Id = z.uuid({ message: 'must be a UUID' });

/** The REST input's field names as GraphQL spells them, for the messages. */
const GRAPHQL_NAMES: Record<string, string> = { payment_id: 'paymentId', received_at: 'receivedAt' };

function parse<T>(schema: z.ZodType<T>, value: unknown, prefix = ''): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const where = (path: PropertyKey[]) => [prefix, ...path.map((p) => GRAPHQL_NAMES[String(p)] ?? String(p))].filter(Boolean).join('.');
    throw AppError.validation(parsed.error.issues.map((i) => `${where(i.path)}: ${i.message}`).join('; '));
  }
  return parsed.data;
}

const page = (args: z.infer<typeof PageArgs>, sort: string) => ({ limit: Math.min(args.limit ?? 25, 100), cursor: args.cursor ?? undefined, sort });

const methodNode = (m: OfflineMethod) => ({
  id: m.id, name: m.name, kind: m.kind, instructions: m.instructions, currencies: m.currencies, enabled: m.enabled, position: m.position,
  createdAt: m.createdAt.toISOString(), updatedAt: m.updatedAt.toISOString(),
});

const receiptNode = (r: OfflineReceipt) => ({
  id: r.id, paymentId: r.paymentId, orderId: r.orderId, methodId: r.methodId, amount: r.amount, currency: r.currency, reference: r.reference ?? null,
  note: r.note ?? null, receivedAt: r.receivedAt.toISOString(), recordedBy: r.recordedBy ?? null, voidedAt: r.voidedAt?.toISOString() ?? null,
  voidReason: r.voidReason ?? null, createdAt: r.createdAt.toISOString(),
});

const standing = ({ payment, received }: OfflinePaymentView) => ({
  paymentId: payment.id, orderId: payment.orderId, status: payment.status, amount: payment.amount, currency: payment.currency,
  receivedAmount: received, outstandingAmount: payment.status === 'pending' ? Math.max(0, payment.amount - received) : 0,
});

/** Methods and receipts; each root field declares who may call it, as the REST routes do. */
export const offlineGraphQL: GraphQLContribution = {
  typeDefs,
  access: {
    Query: {
      offlinePaymentMethods: { auth: ADMIN, permission: 'payments.read' },
      availableOfflinePaymentMethods: { auth: STOREFRONT },
      offlineReceipts: { auth: ADMIN, permission: 'payments.read' },
    },
    Mutation: {
      recordOfflineReceipt: { auth: ADMIN, permission: 'payments.capture' },
      voidOfflineReceipt: { auth: ADMIN, permission: 'payments.capture' },
    },
  },
  resolvers: {
    Query: {
      offlinePaymentMethods: async (_: unknown, raw: unknown, ctx: QhatuGraphQLContext) => {
        const args = parse(PageArgs, raw);
        const found = await ctx.container.resolve(OfflineMethods).list(page(args, 'position'), {});
        return toConnection(found, methodNode, args.cursor ?? undefined);
      },
      availableOfflinePaymentMethods: async (_: unknown, raw: { currency: string }, ctx: QhatuGraphQLContext) => {
        const currency = parse(CurrencyCode, raw.currency, 'currency');
        return (await ctx.container.resolve(OfflineMethods).available(currency)).map(methodNode);
      },
      offlineReceipts: async (_: unknown, raw: { paymentId?: string | null } & Record<string, unknown>, ctx: QhatuGraphQLContext) => {
        const args = parse(PageArgs, raw);
        const paymentId = raw.paymentId == null ? undefined : parse(Id, raw.paymentId, 'paymentId');
        const found = await ctx.container.resolve(OfflineReceipts).list(page(args, '-created_at'), { payment_id: paymentId });
        return toConnection(found, receiptNode, args.cursor ?? undefined);
      },
    },
    Mutation: {
      recordOfflineReceipt: async (_: unknown, raw: { input: Record<string, unknown> }, ctx: QhatuGraphQLContext) => {
        const { paymentId, receivedAt, ...rest } = raw.input;
        const input = parse(ReceiptInput, { ...rest, payment_id: paymentId, ...(receivedAt == null ? {} : { received_at: receivedAt }) }, 'input');
        const { receipt, view } = await ctx.container.resolve(OfflineReceipts).record(input);
        return { receipt: receiptNode(receipt), payment: standing(view) };
      },
      voidOfflineReceipt: async (_: unknown, raw: { id: string; reason: string }, ctx: QhatuGraphQLContext) => {
        const id = parse(Id, raw.id, 'id');
        const reason = parse(z.string().trim().min(1, 'must say why').max(500, 'must be at most 500 characters'), raw.reason, 'reason');
        const { receipt, view } = await ctx.container.resolve(OfflineReceipts).void(id, reason);
        return { receipt: receiptNode(receipt), payment: standing(view) };
      },
    },
  },
};
