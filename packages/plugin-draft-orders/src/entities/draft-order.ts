import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { ShippingAddress } from '@qhatu/plugin-orders';

export const DRAFT_ORDER_STATUSES = ['open', 'invoice_sent', 'completed', 'cancelled'] as const;
export type DraftOrderStatus = (typeof DRAFT_ORDER_STATUSES)[number];

/** A price staff set on a catalog line, and why; who set it is kept. */
export interface PriceOverride {
  amount: number;
  reason: string;
  set_by: string | null;
}

/**
 * A line of a draft, as staff gave it and as it was last priced. A catalog line names its variant
 * (priced for the draft's customer, B2B price lists included, unless staff overrode the price); a
 * custom line (`variant_id` null) has the title, unit price and tax class staff gave it.
 */
export interface DraftLine {
  id: string;
  variant_id: string | null;
  /** A seller's offer of the variant's product (a marketplace): priced at the offer, its stock the seller's; null: the store's own. */
  offer_id?: string | null;
  product_id: string | null;
  title: string;
  variant_title: string | null;
  sku: string | null;
  quantity: number;
  /** The variant's catalog price when last priced; null for a custom line. */
  catalog_price: number | null;
  /** What one unit costs: the override, the offer's price, the customer's price (a B2B list's) or the catalog's; a custom line's own. */
  unit_price: number;
  price_override: PriceOverride | null;
  requires_shipping: boolean;
  taxable: boolean;
  /** The class it was taxed at; a custom line's is the one staff gave. */
  tax_class: string;
  weight_grams: number | null;
  /** quantity × unit_price. */
  subtotal: number;
  volume_discount: number;
  /** The volume discount plus this line's share of the draft's discount, taken before tax. */
  discount_amount: number;
  tax_rate: number;
  tax_amount: number;
  /** subtotal − discount_amount. */
  total: number;
}

/** The draft's shipping: priced by the store's rates, or a custom price (with the override permission and a reason). */
export interface DraftShipping {
  carrier: string;
  service: string;
  price: number;
  custom: boolean;
  reason: string | null;
}

/** A coupon (the discounts plugin's rules) or a manual amount off (with the override permission and a reason). */
export interface DraftDiscount {
  type: 'coupon' | 'manual';
  code: string | null;
  /** The manual amount asked for; null for a coupon. */
  value: number | null;
  reason: string | null;
  /** Whether it applies now: a coupon that stopped applying takes nothing and stops the draft from being placed. */
  applies: boolean;
  /** Why a coupon does not apply (the discounts plugin's reason). */
  refusal: string | null;
  /** What it takes off, spread over the lines. */
  amount: number;
}

/** An order staff build for a customer: priced like a checkout, placed as one. */
export const DraftOrder = defineEntity({
  name: 'DraftOrder',
  tableName: 'draft_orders_draft',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    /** Per store, from 1 (shown as D1). */
    number: p.integer(),
    status: p.string().$type<DraftOrderStatus>(),
    customerId: p.uuid().nullable(),
    /** Lower-case; required to place the draft. */
    email: p.string().nullable(),
    currency: p.string(),
    lines: p.json<DraftLine[]>(),
    shippingAddress: p.json<ShippingAddress>().nullable(),
    shipping: p.json<DraftShipping>().nullable(),
    discount: p.json<DraftDiscount>().nullable(),
    note: p.string().nullable(),
    subtotal: p.bigint('number'),
    discountTotal: p.bigint('number'),
    shippingTotal: p.bigint('number'),
    taxTotal: p.bigint('number'),
    shippingTax: p.bigint('number'),
    pricesIncludeTax: p.boolean(),
    total: p.bigint('number'),
    /** The order placed from it (sending the invoice or completing it places it). */
    orderId: p.uuid().nullable(),
    invoiceUrl: p.string().nullable(),
    invoiceSentAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    cancelledAt: p.datetime().nullable(),
    cancelReason: p.string().nullable(),
    createdBy: p.uuid().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type DraftOrder = InferEntity<typeof DraftOrder>;
