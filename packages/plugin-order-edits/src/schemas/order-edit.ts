import { Money, pageQuery, Timestamp, Uuid } from '@qhatu/core';
import { ORDER_STATUSES } from '@qhatu/plugin-orders';
import { z } from 'zod';
import { LINE_CHANGES, ORDER_EDIT_STATUSES } from '../entities/order-edit.js';

const Quantity = z.number().int('must be a whole number').min(1, 'must be at least 1').max(10_000);
const Text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max);

const Change = z.discriminatedUnion('action', [
  z
    .strictObject({
      action: z.literal('add'),
      variant_id: Uuid,
      quantity: Quantity,
      offer_id: Uuid.optional().meta({ description: 'Bought on this seller’s offer (a marketplace), at its price; absent: the store’s own stock' }),
    })
    .meta({ description: 'A variant at the customer’s price, or an offer’s (more of a line the order has, on the same offer: that line)' }),
  z.strictObject({ action: z.literal('update'), line_item_id: Uuid, quantity: Quantity }).meta({ description: 'A line’s new quantity (at least what was fulfilled of it)' }),
  z.strictObject({ action: z.literal('remove'), line_item_id: Uuid }).meta({ description: 'A line none of which was fulfilled' }),
]);

export const EditCreate = z
  .strictObject({
    changes: z.array(Change).max(250).default([]),
    shipping: z
      .strictObject({
        carrier: Text(100),
        service: Text(100),
        price: Money.optional().meta({ description: 'A custom price (needs order-edits.override-price and a reason); absent: the store’s rate for the order’s parcel and address' }),
        reason: z.string().trim().min(1, 'must say why').max(500).optional(),
      })
      .refine((s) => s.price === undefined || s.reason !== undefined, { path: ['reason'], message: 'is required with a custom price' })
      .nullable()
      .optional()
      .meta({ description: 'The shipping from now on; null: none; absent: as it is' }),
    note: z.string().trim().max(1000).optional(),
  })
  .meta({ id: 'OrderEditCreate' });
export type EditCreate = z.output<typeof EditCreate>;

export const EditConfirm = z
  .strictObject({ notify: z.boolean().default(true).meta({ description: 'E-mail the customer the link to pay what is due, when something is' }) })
  .meta({ id: 'OrderEditConfirm' });

const Int = z.number().int();

const EditLineOut = z.object({
  line_item_id: z.uuid().nullable(),
  variant_id: z.uuid().nullable(),
  product_id: z.uuid().nullable(),
  offer_id: z.uuid().nullable().meta({ description: 'The seller’s offer the line is bought on; null: the store’s own stock' }),
  title: z.string(),
  variant_title: z.string(),
  sku: z.string().nullable(),
  quantity: Int,
  fulfilled_quantity: Int,
  unit_price: Int,
  requires_shipping: z.boolean(),
  discount_amount: Int,
  tax_class: z.string(),
  tax_rate: Int,
  tax_amount: Int,
  total: Int,
  change: z.enum(LINE_CHANGES),
});

const SnapshotOut = z.object({
  lines: z.array(EditLineOut),
  coupon: z
    .object({ code: z.string(), applies: z.boolean(), refusal: z.string().nullable().meta({ description: 'Why it no longer applies (the discounts plugin’s reason)' }), amount: Int })
    .nullable()
    .meta({ description: 'The order’s coupon and what it takes off; null: the order has none' }),
  subtotal: Int,
  discount_total: Int,
  shipping_total: Int,
  shipping_tax: Int,
  tax_total: Int,
  total: Int,
});

export const EditOut = z
  .object({
    id: z.uuid(),
    order_id: z.uuid(),
    status: z.enum(ORDER_EDIT_STATUSES),
    version: Int.nullable().meta({ description: 'The order’s version this edit made, once confirmed' }),
    changes: z.array(z.record(z.string(), z.unknown())),
    shipping: z.object({ carrier: z.string().nullable(), service: z.string().nullable(), price: Int, custom: z.boolean(), reason: z.string().nullable() }).nullable(),
    shipping_changed: z.boolean(),
    currency: z.string(),
    before: SnapshotOut,
    after: SnapshotOut,
    difference: Int.meta({ description: 'after.total − before.total' }),
    amount_paid: Int.meta({ description: 'What the order’s payments brought in, net of refunds, when previewed' }),
    amount_due: Int.meta({ description: 'What the customer owes once it is confirmed (asked for with a payment link)' }),
    refund_amount: Int.meta({ description: 'What goes back through the order’s own payments once it is confirmed' }),
    note: z.string().nullable(),
    payment_url: z.string().nullable(),
    created_by: z.uuid().nullable(),
    confirmed_by: z.uuid().nullable(),
    confirmed_at: Timestamp.nullable(),
    cancelled_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'OrderEdit' });

export const EditListQuery = pageQuery();

export const PaymentQuery = z.strictObject({ token: z.string().min(1).max(4000) });

export const PaymentOut = z
  .object({
    tenant_id: z.uuid().meta({ description: 'The store (X-Tenant-ID of the payment calls)' }),
    store_name: z.string(),
    order_id: z.uuid(),
    order_number: Int,
    order_status: z.enum(ORDER_STATUSES),
    edit_id: z.uuid(),
    currency: z.string(),
    total: Int,
    amount_due: Int.meta({ description: 'What is left to pay on the order now' }),
    expires_at: Timestamp,
  })
  .meta({ id: 'OrderEditPayment' });
