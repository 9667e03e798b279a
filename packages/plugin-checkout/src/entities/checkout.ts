import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const CHECKOUT_STATUSES = ['pending', 'shipping_set', 'payment_pending', 'completed', 'abandoned'] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

export interface CheckoutAddress {
  first_name: string;
  last_name: string;
  address1: string;
  city: string;
  province: string;
  country_code: string;
  zip: string;
  phone: string | null;
}

export interface ShippingRate {
  carrier: string;
  service: string;
  price: number;
}

/** A line as it will be charged: a snapshot of the cart line when the checkout was made. */
export interface CheckoutLine {
  id: string;
  variant_id: string;
  product_id: string;
  title: string;
  variant_title: string | null;
  sku: string | null;
  quantity: number;
  unit_price: number;
  subtotal: number;
  volume_discount: number;
  total: number;
  requires_shipping: boolean;
  image_url: string | null;
  weight_grams: number | null;
  taxable: boolean;
  /** Volume discount plus the line's share of the coupon, taken before tax. */
  discount_amount?: number;
  tax_class?: string;
  /** Basis points (1800 = 18 %). */
  tax_rate?: number;
  /** The tax of the line after its discounts, rounded to the minor unit. */
  tax_amount?: number;
  /** The seller's offer the line is bought on (a marketplace). */
  offer_id: string | null;
  /** Set when the order is placed: units sold as a backorder (the variant allows it), shipped once stock arrives. */
  backordered_quantity?: number;
}

export const Checkout = defineEntity({
  name: 'CheckoutCheckout',
  tableName: 'checkout_checkout',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    cartId: p.uuid(),
    customerId: p.uuid().nullable(),
    email: p.string(),
    status: p.string().$type<CheckoutStatus>(),
    currency: p.string(),
    /** The cart's market (decision 0097); null: none. */
    marketId: p.uuid().nullable(),
    /** Whether the prices include tax by that market when last priced; null: the store's tax setting. */
    marketPricesIncludeTax: p.boolean().nullable(),
    lineItems: p.json<CheckoutLine[]>(),
    couponCode: p.string().nullable(),
    subtotal: p.bigint('number'),
    shippingTotal: p.bigint('number'),
    discountTotal: p.bigint('number'),
    /** The lines' tax plus the shipping's. */
    taxTotal: p.bigint('number'),
    shippingTax: p.bigint('number'),
    /** Whether the prices include the tax: then `total` does not add `taxTotal`. */
    pricesIncludeTax: p.boolean(),
    total: p.bigint('number'),
    shippingAddress: p.json<CheckoutAddress>().nullable(),
    billingAddress: p.json<CheckoutAddress>().nullable(),
    shippingRate: p.json<ShippingRate>().nullable(),
    /** The order placed when the checkout entered payment_pending. */
    orderId: p.uuid().nullable(),
    abandonedAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Checkout = InferEntity<typeof Checkout>;
