import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * One variant in a cart; title, price and the rest are the catalog's, whatever the client sent.
 * Whoever writes a cart's lines writes the cart's row in the same transaction: processes know a
 * cart's lines by the row's version (decision 0049).
 */
export const CartItem = defineEntity({
  name: 'CheckoutCartItem',
  tableName: 'checkout_cart_item',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    cartId: p.uuid(),
    variantId: p.uuid(),
    productId: p.uuid(),
    title: p.string(),
    variantTitle: p.string().nullable(),
    sku: p.string().nullable(),
    quantity: p.integer(),
    /** Minor units, the catalog price when the cart last changed. */
    unitPrice: p.integer(),
    volumeDiscount: p.bigint('number'),
    requiresShipping: p.boolean(),
    imageUrl: p.string().nullable(),
    weightGrams: p.integer().nullable(),
    taxable: p.boolean(),
    /** The seller's offer the line is bought on (a marketplace); null: the store's own stock. */
    offerId: p.uuid().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type CartItem = InferEntity<typeof CartItem>;
