import { Database, definePlugin, OutboxRelay, STOREFRONT, type GraphQLContribution, type QhatuGraphQLContext } from '@qhatu/core';
import { OrderReads } from '@qhatu/plugin-orders';
import { GiftWrapItem } from './entities/gift-wrap-item.js';
import { giftWrapMigrations } from './migrations/index.js';
import { giftWrapItemRoutes } from './routes/items.js';
import { GiftWrapItems, ITEM_CREATED } from './services/gift-wrap-items.js';

/** What the storefront reads through GraphQL: the store's wrapping papers. */
const graphql: GraphQLContribution = {
  typeDefs: `
    type GiftWrapPaper { id: ID!, title: String!, ribbon: String }
    extend type Query { giftWrapPapers(limit: Int): [GiftWrapPaper!]! }
  `,
  access: { Query: { giftWrapPapers: { auth: STOREFRONT } } },
  resolvers: {
    Query: {
      giftWrapPapers: async (_parent: unknown, args: { limit?: number | null }, ctx: QhatuGraphQLContext) => {
        const page = await ctx.container.resolve(GiftWrapItems).list({ limit: Math.min(args.limit ?? 25, 100), sort: '-created_at' });
        return page.items.map((i) => ({ id: i.id, title: i.title, ribbon: i.ribbon ?? null }));
      },
    },
  },
};

/** gift-wrap: wrapping papers, a gift-wrap choice on every order, and a paper set aside for each wrapped order. */
export const giftWrapPlugin = definePlugin({
  name: 'gift-wrap',
  dependsOn: ['orders'],
  entities: [GiftWrapItem],
  migrations: giftWrapMigrations,
  events: [ITEM_CREATED],
  permissions: [{ name: 'gift-wrap.write', description: 'Add wrapping papers' }],
  customFields: {
    order: { gift_wrap: { type: 'boolean', default: false, public: true, indexed: true, description: 'Wrap the order as a gift' } },
  },
  jobs: {
    // Runs after an order is placed (inside its store): a wrapped order gets a paper set aside under its number.
    'gift-wrap.set-aside': {
      attempts: 3,
      backoffMs: 1000,
      handler: async (data: { id: string }, ctx) => {
        const { order } = await ctx.container.resolve(OrderReads).get(data.id);
        if (order.customFields.gift_wrap !== true) return;
        await ctx.container.resolve(GiftWrapItems).create({ title: `Paper for order #${order.number}`, description: order.id });
      },
    },
  },
  register(container) {
    container.register(GiftWrapItems, { useFactory: (c) => new GiftWrapItems(c.resolve(Database)) });
    // Queued in the transaction that delivers the event: the job cannot be lost once the order is.
    container.resolve(OutboxRelay).queueOn('orders.order.created', 'gift-wrap.set-aside');
  },
  routes: giftWrapItemRoutes,
  graphql,
});

export default giftWrapPlugin;
export { GiftWrapItem, GiftWrapItems, ITEM_CREATED };
