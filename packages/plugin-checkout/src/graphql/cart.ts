import { AppError, STOREFRONT, type GraphQLContribution, type QhatuGraphQLContext } from '@qhatu/core';
import { z } from 'zod';
import { Carts, type Shopper } from '../services/carts.js';
import type { CartView } from '../services/views.js';

const typeDefs = `
  type CartLineVariant { id: ID!, title: String, price: Int! }
  type CartLine { id: ID!, quantity: Int!, variant: CartLineVariant! }
  "Amounts in minor units of currency (its market's, else the one it was made in); taxTotal is an estimate (the store's own country) and total adds it only when pricesIncludeTax (the market's say, else the store's setting) is false. marketId: the market it was made in, null for none."
  type Cart { id: ID!, currency: String!, marketId: ID, lines: [CartLine!]!, subtotal: Int!, discountTotal: Int!, taxTotal: Int!, pricesIncludeTax: Boolean!, total: Int! }
  input AddToCartInput { variantId: ID!, quantity: Int! }
  extend type Query {
    cart(id: ID!): Cart
  }
  extend type Mutation {
    addToCart(cartId: ID!, input: AddToCartInput!): Cart!
    updateCartItem(cartId: ID!, itemId: ID!, quantity: Int!): Cart!
    removeFromCart(cartId: ID!, itemId: ID!): Cart!
  }
`;

const Id = z.uuid({ message: 'must be a UUID' });
const Quantity = z.number().int().min(1, 'quantity must be at least 1').max(10_000, 'quantity must be at most 10000');

function parse<T extends z.ZodType>(schema: T, raw: unknown): z.output<T> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw AppError.validation(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  return parsed.data;
}

function node({ cart, items }: CartView) {
  return {
    id: cart.id,
    currency: cart.currency,
    marketId: cart.marketId ?? null,
    lines: [...items]
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
      .map((i) => ({ id: i.id, quantity: i.quantity, variant: { id: i.variantId, title: i.variantTitle, price: i.unitPrice } })),
    subtotal: cart.subtotal,
    discountTotal: cart.volumeDiscountTotal + cart.couponDiscount,
    taxTotal: cart.taxTotal,
    pricesIncludeTax: cart.pricesIncludeTax,
    total: cart.total,
    // Resolved by core's `Cart.customFields` (when fields are declared): the caller sees what it may.
    customFields: cart.customFields,
  };
}

// Vendors have no cart (access admits every other tenant token); a customer uses only their own.
const shopperOf = ({ principal }: QhatuGraphQLContext): Shopper => ({ customerId: principal.kind === 'customer' ? principal.subjectId : null });
const carts = (ctx: QhatuGraphQLContext) => ctx.container.resolve(Carts);

export const cartGraphQL: GraphQLContribution = {
  typeDefs,
  access: {
    Query: { cart: { auth: STOREFRONT } },
    Mutation: { addToCart: { auth: STOREFRONT }, updateCartItem: { auth: STOREFRONT }, removeFromCart: { auth: STOREFRONT } },
  },
  resolvers: {
    Query: {
      cart: async (_: unknown, raw: unknown, ctx: QhatuGraphQLContext) => {
        const { id } = parse(z.object({ id: Id }), raw);
        return node(await carts(ctx).get(id, shopperOf(ctx)));
      },
    },
    Mutation: {
      addToCart: async (_: unknown, raw: unknown, ctx: QhatuGraphQLContext) => {
        const args = parse(z.object({ cartId: Id, input: z.object({ variantId: Id, quantity: Quantity }) }), raw);
        return node(await carts(ctx).addItem(args.cartId, { variant_id: args.input.variantId, quantity: args.input.quantity }, shopperOf(ctx)));
      },
      updateCartItem: async (_: unknown, raw: unknown, ctx: QhatuGraphQLContext) => {
        const args = parse(z.object({ cartId: Id, itemId: Id, quantity: Quantity }), raw);
        return node(await carts(ctx).setQuantity(args.cartId, { itemId: args.itemId }, args.quantity, shopperOf(ctx)));
      },
      removeFromCart: async (_: unknown, raw: unknown, ctx: QhatuGraphQLContext) => {
        const args = parse(z.object({ cartId: Id, itemId: Id }), raw);
        return node(await carts(ctx).removeItem(args.cartId, { itemId: args.itemId }, shopperOf(ctx)));
      },
    },
  },
};
