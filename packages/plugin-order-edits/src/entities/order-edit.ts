import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const ORDER_EDIT_STATUSES = ['open', 'confirmed', 'cancelled'] as const;
export type OrderEditStatus = (typeof ORDER_EDIT_STATUSES)[number];

export const LINE_CHANGES = ['unchanged', 'changed', 'added', 'removed'] as const;
export type LineChange = (typeof LINE_CHANGES)[number];

/** A line of the order before or after the edit (after: a removed line has quantity 0). */
export interface EditLine {
  /** The order's line; null for a line the edit adds (until it is confirmed). */
  line_item_id: string | null;
  variant_id: string | null;
  product_id: string | null;
  /** The seller's offer the line is bought on (a marketplace); null: the store's own stock. Absent in edits made before offers could change. */
  offer_id?: string | null;
  title: string;
  variant_title: string;
  sku: string | null;
  quantity: number;
  fulfilled_quantity: number;
  unit_price: number;
  requires_shipping: boolean;
  discount_amount: number;
  tax_class: string;
  tax_rate: number;
  tax_amount: number;
  /** unit_price × quantity − discount_amount. */
  total: number;
  change: LineChange;
}

/** The order's coupon on one side of the edit: what it takes off, or why it no longer applies. */
export interface EditCoupon {
  code: string;
  applies: boolean;
  /** The discounts plugin's reason when it no longer applies (`min_order_amount_not_met`, `not_applicable`). */
  refusal: string | null;
  amount: number;
}

/** The order's lines and totals on one side of the edit. */
export interface EditSnapshot {
  lines: EditLine[];
  /** The order's coupon (absent: the order has none). */
  coupon?: EditCoupon | null;
  subtotal: number;
  discount_total: number;
  shipping_total: number;
  shipping_tax: number;
  tax_total: number;
  total: number;
}

/** What staff asked for. */
export type EditChange =
  | { action: 'add'; variant_id: string; quantity: number; offer_id?: string }
  | { action: 'update'; line_item_id: string; quantity: number }
  | { action: 'remove'; line_item_id: string };

/** The shipping asked for: priced by the store's rates, a custom price (with a reason), or none (`null` in the request). */
export interface EditShipping {
  carrier: string | null;
  service: string | null;
  price: number;
  custom: boolean;
  reason: string | null;
}

/**
 * An edit of an order: previewed when made (`before`, `after`, the difference), applied when
 * confirmed, which makes it a version of the order (who, when, what changed).
 */
export const OrderEdit = defineEntity({
  name: 'OrderEdit',
  tableName: 'order_edits_edit',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    orderId: p.uuid(),
    status: p.string().$type<OrderEditStatus>(),
    /** The order's version this edit made (1, 2, …), once confirmed. */
    version: p.integer().nullable(),
    changes: p.json<EditChange[]>(),
    /** Absent: the shipping stays as it is. */
    shipping: p.json<EditShipping>().nullable(),
    shippingChanged: p.boolean(),
    before: p.json<EditSnapshot>(),
    after: p.json<EditSnapshot>(),
    /** The order's `updated_at` the preview was made on: confirming needs the order unchanged since. */
    orderUpdatedAt: p.datetime(),
    currency: p.string(),
    /** What the order's payments had brought in (net of refunds) when previewed. */
    amountPaid: p.bigint('number'),
    /** after.total − before.total. */
    difference: p.bigint('number'),
    /** What the customer will owe once it is confirmed. */
    amountDue: p.bigint('number'),
    /** What goes back to the customer once it is confirmed. */
    refundAmount: p.bigint('number'),
    note: p.string().nullable(),
    paymentUrl: p.string().nullable(),
    createdBy: p.uuid().nullable(),
    confirmedBy: p.uuid().nullable(),
    confirmedAt: p.datetime().nullable(),
    cancelledAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type OrderEdit = InferEntity<typeof OrderEdit>;
