import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { CustomFieldValues } from '@qhatu/core';

/** A shopper's cart; its totals are recomputed from the catalog on every change. */
export const Cart = defineEntity({
  name: 'CheckoutCart',
  tableName: 'checkout_cart',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    customerId: p.uuid().nullable(),
    sessionId: p.string().nullable(),
    currency: p.string(),
    /** The market the cart was made in (decision 0097); null: none. No foreign key: a deleted market's carts keep their terms. */
    marketId: p.uuid().nullable(),
    /** Whether the prices include tax by the cart's market when it was last priced; null: the store's tax setting. Kept for a market since deleted. */
    marketPricesIncludeTax: p.boolean().nullable(),
    couponCode: p.string().nullable(),
    /** Why the coupon gives nothing right now (the discounts plugin's reason); null when it applies. */
    couponRefusal: p.string().nullable(),
    itemCount: p.integer(),
    /** Minor units: lines at catalog price, before discounts. */
    subtotal: p.bigint('number'),
    volumeDiscountTotal: p.bigint('number'),
    couponDiscount: p.bigint('number'),
    /** An estimate: the store's own country until a checkout has an address. */
    taxTotal: p.bigint('number'),
    pricesIncludeTax: p.boolean(),
    /** Lines less discounts, plus `taxTotal` when prices exclude tax. */
    total: p.bigint('number'),
    /** Set once a checkout is made from the cart: the cart is frozen from then on. */
    checkoutId: p.uuid().nullable(),
    /** Declared by plugins and the project (core's `CustomFields`); those the order declares too are carried to it. */
    customFields: p.json<CustomFieldValues>().onCreate(() => ({})),
    expiresAt: p.datetime(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Cart = InferEntity<typeof Cart>;
