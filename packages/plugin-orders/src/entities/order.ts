import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { CustomFieldValues } from '@qhatu/core';

export const ORDER_STATUSES = [
  'pending',
  'confirmed',
  'paid',
  'ready_to_ship',
  'in_transit',
  'partially_fulfilled',
  'fulfilled',
  'cancelled',
  'refunded',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export interface ShippingAddress {
  first_name: string;
  last_name: string;
  company?: string | null;
  address1: string;
  address2?: string | null;
  city: string;
  province?: string | null;
  country_code: string;
  zip: string;
  phone?: string | null;
}

/** One move of the order's status, kept on the order (who asked is in the note). */
export interface OrderHistoryEntry {
  action: string;
  from: OrderStatus;
  to: OrderStatus;
  note: string | null;
  at: string;
}

export const Order = defineEntity({
  name: 'Order',
  tableName: 'orders_order',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    /** Per store, from 1001. */
    number: p.integer(),
    status: p.string().$type<OrderStatus>(),
    customerId: p.uuid().nullable(),
    /** Lower-case. */
    customerEmail: p.string(),
    customerName: p.string(),
    currency: p.string(),
    subtotal: p.bigint('number'),
    shippingTotal: p.bigint('number'),
    discountTotal: p.bigint('number'),
    taxTotal: p.bigint('number'),
    /** The tax of the shipping charge, part of `taxTotal`. */
    shippingTax: p.bigint('number'),
    /** Whether the prices included the tax: then `total` does not add `taxTotal`. */
    pricesIncludeTax: p.boolean(),
    /** What is due: subtotal − discounts + shipping, plus `taxTotal` when prices exclude it. */
    total: p.bigint('number'),
    /** Sum of the payments confirmed for the order in its currency (`orders_payment`), refunds not deducted. */
    amountPaid: p.bigint('number'),
    /** Sum of what was refunded of those payments. */
    amountRefunded: p.bigint('number'),
    /**
     * What the store gave up of `total` (decision 0085): money refunded outside an edit, kept as
     * given once an edit changes the order. The order is covered by `total − amountWaived`.
     */
    amountWaived: p.bigint('number').default(0),
    shippingAddress: p.json<ShippingAddress>().nullable(),
    history: p.json<OrderHistoryEntry[]>(),
    cancelReason: p.string().nullable(),
    cancelledAt: p.datetime().nullable(),
    paidAt: p.datetime().nullable(),
    /** Set while a payment that covers the order is confirmed but its stock could not be reserved. */
    awaitingStockPaymentId: p.string().nullable(),
    /** Set when its stock was found unavailable and the store's policy is to refund: it is never paid then. */
    stockUnavailableAt: p.datetime().nullable(),
    fulfilledAt: p.datetime().nullable(),
    /** Declared by plugins and the project (core's `CustomFields`); a cart's are carried over at checkout. */
    customFields: p.json<CustomFieldValues>().onCreate(() => ({})),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Order = InferEntity<typeof Order>;
