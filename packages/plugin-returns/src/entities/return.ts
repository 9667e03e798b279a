import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const RETURN_KINDS = ['return', 'exchange', 'claim'] as const;
export type ReturnKind = (typeof RETURN_KINDS)[number];

export const RETURN_STATUSES = ['requested', 'approved', 'rejected', 'cancelled', 'partially_received', 'received', 'refunded', 'closed'] as const;
export type ReturnStatus = (typeof RETURN_STATUSES)[number];

/** A claim's problem: the item never arrived, or arrived damaged. */
export const CLAIM_TYPES = ['missing', 'damaged'] as const;
export type ClaimType = (typeof CLAIM_TYPES)[number];

/** What a claim gives the customer: the item again (a new shipment, taking stock), or the money. */
export const CLAIM_RESOLUTIONS = ['replace', 'refund'] as const;
export type ClaimResolution = (typeof CLAIM_RESOLUTIONS)[number];

/**
 * Where a refund goes: back through the order's own payments, to the customer's store credit, or,
 * for an order placed on a company's account (the B2B plugin), off what the company owes for it.
 */
export const REFUND_METHODS = ['original_payments', 'store_credit', 'account'] as const;
export type RefundMethod = (typeof REFUND_METHODS)[number];

/** How the items travel back: the customer's own way, or a label the store pays for. */
export interface ReturnShipping {
  method: 'customer' | 'store_label';
  carrier: string | null;
  service: string | null;
  /** What the store pays for the label (its rates, for the parcel's weight and the order's address); 0 for the customer's own way. */
  amount: number;
  weight_grams: number;
}

/** One refund planned through a payment of the order: its id is the payments plugin's refund's. */
export interface PlannedRefund {
  id: string;
  payment_id: string;
  amount: number;
}

/** The replacement shipment of a claim or an exchange's new items. */
export interface ReplacementShipment {
  /** The order's fulfilment that shipped them (decision 0087); absent on shipments recorded before. */
  fulfillment_id?: string | null;
  carrier: string | null;
  tracking_number: string | null;
  shipped_at: string;
  items: Array<{ line_id: string; variant_id: string; quantity: number }>;
}

/**
 * A return of fulfilled items, an exchange (a return plus new items) or a claim (missing or
 * damaged items, replaced or refunded without coming back). Every change locks its row.
 */
export const Return = defineEntity({
  name: 'Return',
  tableName: 'returns_return',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    /** Per store, from 1 (shown as R1). */
    number: p.integer(),
    orderId: p.uuid(),
    kind: p.string().$type<ReturnKind>(),
    status: p.string().$type<ReturnStatus>(),
    claimType: p.string().$type<ClaimType>().nullable(),
    resolution: p.string().$type<ClaimResolution>().nullable(),
    customerId: p.uuid().nullable(),
    email: p.string(),
    /** `customer` (the storefront) or `staff`. */
    requestedBy: p.string(),
    reasonCode: p.string().nullable(),
    note: p.string().nullable(),
    currency: p.string(),
    shipping: p.json<ReturnShipping>().nullable(),
    refundMethod: p.string().$type<RefundMethod>().nullable(),
    /** What the returned (or claimed) lines are worth back, tax included: the sum of their refund amounts. */
    itemsAmount: p.bigint('number'),
    /** The tax inside `itemsAmount` (and the shipping's). */
    taxAmount: p.bigint('number'),
    /** The order's shipping given back, as the store's policy says. */
    shippingAmount: p.bigint('number'),
    /** An exchange's new items, tax included. */
    newItemsAmount: p.bigint('number'),
    /** What goes back to the customer: items + shipping − new items, never below 0. */
    refundAmount: p.bigint('number'),
    /** Of `refundAmount`, what was set against what the company owes for an order on account (`account`); the rest went through the order's payments. */
    accountAmount: p.bigint('number'),
    /** What the customer owes for an exchange whose new items cost more. */
    amountDue: p.bigint('number'),
    amountPaid: p.bigint('number'),
    refunds: p.json<PlannedRefund[]>(),
    paymentUrl: p.string().nullable(),
    shipment: p.json<ReplacementShipment>().nullable(),
    rejectReason: p.string().nullable(),
    createdBy: p.uuid().nullable(),
    approvedAt: p.datetime().nullable(),
    receivedAt: p.datetime().nullable(),
    refundedAt: p.datetime().nullable(),
    closedAt: p.datetime().nullable(),
    cancelledAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Return = InferEntity<typeof Return>;

/** A returned (or claimed) unit of an order line, or an exchange's new item (`kind: new`). */
export const RETURN_LINE_KINDS = ['returned', 'new'] as const;
export type ReturnLineKind = (typeof RETURN_LINE_KINDS)[number];

export const ReturnLine = defineEntity({
  name: 'ReturnLine',
  tableName: 'returns_line',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    returnId: p.uuid(),
    orderId: p.uuid(),
    position: p.integer(),
    kind: p.string().$type<ReturnLineKind>(),
    /** The order line it comes from; null for a new item. */
    lineItemId: p.uuid().nullable(),
    variantId: p.uuid().nullable(),
    title: p.string(),
    sku: p.string().nullable(),
    quantity: p.integer(),
    reasonCode: p.string().nullable(),
    note: p.string().nullable(),
    receivedQuantity: p.integer(),
    /** Of the received units: back in stock, or written off as damaged. */
    restockedQuantity: p.integer(),
    damagedQuantity: p.integer(),
    /** Where the last units put back in stock went. */
    warehouseId: p.uuid().nullable(),
    /** Worked out at the refund (decision 0074): what these units were paid after discounts, and their tax. */
    refundAmount: p.bigint('number'),
    taxAmount: p.bigint('number'),
    /** A new item's price per unit (tax in it or not, as the order's `pricesIncludeTax` says). */
    unitPrice: p.bigint('number'),
    /** Units of a new item shipped, or of a claimed line replaced. */
    shippedQuantity: p.integer(),
    createdAt: p.datetime(),
  },
});
export type ReturnLine = InferEntity<typeof ReturnLine>;
