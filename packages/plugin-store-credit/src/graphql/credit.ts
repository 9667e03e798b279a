import { ADMIN, AppError, CurrencyCode, toConnection, type GraphQLContribution, type QhatuGraphQLContext } from '@qhatu/core';
import { z } from 'zod';
import type { StoreCreditEntry } from '../entities/entry.js';
import { ADJUST_PERMISSION } from '../gateway.js';
import { AdjustmentInput } from '../schemas/credit.js';
import { StoreCreditAccounts, type BalanceView } from '../services/accounts.js';

const typeDefs = `
  enum StoreCreditEntryKind { grant deduct spend restore }
  "A customer's store credit in one currency (minor units, never below zero)."
  type StoreCreditBalance { currency: String!, balance: Int!, updatedAt: String! }
  type StoreCreditAccount { customerId: ID!, balances: [StoreCreditBalance!]! }
  type StoreCreditSource { type: String!, id: String }
  "One change of a balance: amount is signed (minor units), balanceAfter what it left."
  type StoreCreditEntry { id: ID!, customerId: ID!, currency: String!, kind: StoreCreditEntryKind!, amount: Int!, balanceAfter: Int!, reason: String!, source: StoreCreditSource!, paymentId: ID, orderId: ID, createdBy: ID, createdAt: String! }
  type StoreCreditEntryEdge { node: StoreCreditEntry!, cursor: String! }
  type StoreCreditEntryConnection { edges: [StoreCreditEntryEdge!]!, pageInfo: PageInfo! }
  enum StoreCreditAdjustmentKind { grant deduct }
  input StoreCreditAdjustmentInput { kind: StoreCreditAdjustmentKind!, currency: String!, amount: Int!, reason: String! }
  type StoreCreditAdjustment { entry: StoreCreditEntry!, balances: [StoreCreditBalance!]! }
  extend type Query {
    "A customer's store credit, one balance per currency (store-credit.read)."
    storeCredit(customerId: ID!): StoreCreditAccount!
    "A customer's store-credit ledger, newest first (store-credit.read)."
    storeCreditEntries(customerId: ID!, currency: String, limit: Int, cursor: String): StoreCreditEntryConnection!
    "The signed-in customer's store credit (customer token)."
    myStoreCredit: StoreCreditAccount!
    "The signed-in customer's store-credit history, newest first (customer token)."
    myStoreCreditEntries(currency: String, limit: Int, cursor: String): StoreCreditEntryConnection!
  }
  extend type Mutation {
    "Grants or deducts a customer's store credit with a reason; never below zero (store-credit.adjust)."
    adjustStoreCredit(customerId: ID!, input: StoreCreditAdjustmentInput!): StoreCreditAdjustment!
  }
`;

const ListArgs = z.object({
  currency: CurrencyCode.nullish(),
  limit: z.number().int().min(1, 'limit must be at least 1').nullish(),
  cursor: z.string().min(1).max(512).nullish(),
});
const Id = z.uuid({ message: 'must be a UUID' });
const SELF = ['customer'] as const;

function parse<T>(schema: z.ZodType<T>, value: unknown, prefix = ''): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const where = (path: PropertyKey[]) => [prefix, ...path.map(String)].filter(Boolean).join('.');
    throw AppError.validation(parsed.error.issues.map((i) => `${where(i.path)}: ${i.message}`).join('; '));
  }
  return parsed.data;
}

const balanceNode = (b: BalanceView) => ({ currency: b.currency, balance: b.balance, updatedAt: b.updatedAt.toISOString() });

const entryNode = (e: StoreCreditEntry) => ({
  id: e.id, customerId: e.customerId, currency: e.currency, kind: e.kind, amount: e.amount, balanceAfter: e.balanceAfter, reason: e.reason,
  source: { type: e.sourceType, id: e.sourceId ?? null }, paymentId: e.paymentId ?? null, orderId: e.orderId ?? null, createdBy: e.createdBy ?? null,
  createdAt: e.createdAt.toISOString(),
});

const account = async (ctx: QhatuGraphQLContext, customerId: string) => ({
  customerId,
  balances: (await ctx.container.resolve(StoreCreditAccounts).balances(customerId)).map(balanceNode),
});

const entries = async (ctx: QhatuGraphQLContext, customerId: string, raw: unknown) => {
  const args = parse(ListArgs, raw);
  const page = { limit: Math.min(args.limit ?? 25, 100), cursor: args.cursor ?? undefined, sort: '-created_at' };
  const found = await ctx.container.resolve(StoreCreditAccounts).entries(customerId, page, { currency: args.currency ?? undefined });
  return toConnection(found, entryNode, args.cursor ?? undefined);
};

const self = (ctx: QhatuGraphQLContext) => {
  if (!ctx.principal.subjectId) throw AppError.unauthenticated('This token does not name a customer');
  return ctx.principal.subjectId;
};

/** Balances and ledgers; each root field declares who may call it, as the REST routes do. */
export const creditGraphQL: GraphQLContribution = {
  typeDefs,
  access: {
    Query: {
      storeCredit: { auth: ADMIN, permission: 'store-credit.read' },
      storeCreditEntries: { auth: ADMIN, permission: 'store-credit.read' },
      myStoreCredit: { auth: SELF },
      myStoreCreditEntries: { auth: SELF },
    },
    Mutation: {
      adjustStoreCredit: { auth: ADMIN, permission: ADJUST_PERMISSION },
    },
  },
  resolvers: {
    Query: {
      storeCredit: (_: unknown, raw: { customerId: string }, ctx: QhatuGraphQLContext) => account(ctx, parse(Id, raw.customerId, 'customerId')),
      storeCreditEntries: (_: unknown, raw: { customerId: string }, ctx: QhatuGraphQLContext) => {
        const { customerId, ...rest } = raw;
        return entries(ctx, parse(Id, customerId, 'customerId'), rest);
      },
      myStoreCredit: (_: unknown, _args: unknown, ctx: QhatuGraphQLContext) => account(ctx, self(ctx)),
      myStoreCreditEntries: (_: unknown, raw: unknown, ctx: QhatuGraphQLContext) => entries(ctx, self(ctx), raw),
    },
    Mutation: {
      adjustStoreCredit: async (_: unknown, raw: { customerId: string; input: unknown }, ctx: QhatuGraphQLContext) => {
        const customerId = parse(Id, raw.customerId, 'customerId');
        const input = parse(AdjustmentInput, raw.input, 'input');
        const { entry, balances } = await ctx.container.resolve(StoreCreditAccounts).adjust(customerId, input);
        return { entry: entryNode(entry), balances: balances.map(balanceNode) };
      },
    },
  },
};
