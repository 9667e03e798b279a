import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A line of an order: a snapshot of the variant and its price when the order was placed. */
export const LineItem = defineEntity({
  name: 'OrderLineItem',
  tableName: 'orders_line_item',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    orderId: p.uuid(),
    position: p.integer(),
    /** Null for a custom line (a draft order's line of no catalog variant): never stocked. */
    variantId: p.uuid().nullable(),
    productId: p.uuid().nullable(),
    /** The product's title at the time of purchase. */
    title: p.string(),
    variantTitle: p.string(),
    sku: p.string().nullable(),
    quantity: p.integer(),
    /** Units already in a fulfilment. */
    fulfilledQuantity: p.integer(),
    /** Units of a tracked variant sold without stock and not held since: shipped once stock arrives (decision 0054). */
    backorderedQuantity: p.integer(),
    unitPriceAmount: p.bigint('number'),
    totalAmount: p.bigint('number'),
    requiresShipping: p.boolean(),
    /** This line's share of the order's discounts (volume, coupon), taken before tax. */
    discountAmount: p.bigint('number'),
    taxClass: p.string(),
    /** Basis points (1800 = 18 %), as applied when the order was placed. */
    taxRate: p.integer(),
    /** Rounded per line to the minor unit; the lines and the shipping's tax add up to the order's `taxTotal`. */
    taxAmount: p.bigint('number'),
    /** The seller's offer the line was bought on (a marketplace); null: the store's own stock. */
    offerId: p.uuid().nullable(),
  },
});
export type LineItem = InferEntity<typeof LineItem>;
