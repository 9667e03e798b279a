import { listQuery, Money, pageQuery, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { CLAIM_RESOLUTIONS, CLAIM_TYPES, REFUND_METHODS, RETURN_KINDS, RETURN_LINE_KINDS, RETURN_STATUSES } from '../entities/return.js';
import { SHIPPING_REFUND_POLICIES } from '../entities/settings.js';

const Quantity = z.number().int('must be a whole number').min(1, 'must be at least 1').max(10_000);
const Text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max);
const ReasonCode = z.string().trim().regex(/^[a-z0-9_-]{1,50}$/, 'lower-case letters, digits, _ and -, up to 50').meta({ example: 'wrong_size' });
const Int = z.number().int();

const ReturnShippingInput = z
  .discriminatedUnion('method', [
    z.strictObject({ method: z.literal('customer') }).meta({ description: 'The customer sends the items back their own way, at their cost' }),
    z.strictObject({ method: z.literal('store_label'), carrier: Text(100), service: Text(100) }).meta({ description: 'A label the store pays for, priced with the store’s rates' }),
  ])
  .meta({ id: 'ReturnShippingInput' });

export const ReturnCreate = z
  .strictObject({
    order_id: Uuid,
    kind: z.enum(RETURN_KINDS).default('return').meta({ description: 'return; exchange (returned items plus new_items); claim (missing or damaged items, nothing comes back)' }),
    lines: z
      .array(z.strictObject({ line_item_id: Uuid, quantity: Quantity, reason_code: ReasonCode.optional(), note: z.string().trim().max(1000).optional() }))
      .min(1, 'name at least one line')
      .max(250),
    reason_code: ReasonCode.optional().meta({ description: 'The reason of every line that gives none; one of the store’s active reasons' }),
    note: z.string().trim().max(2000).optional(),
    new_items: z.array(z.strictObject({ variant_id: Uuid, quantity: Quantity })).max(250).optional().meta({ description: 'An exchange’s new items, at the customer’s price now' }),
    claim_type: z.enum(CLAIM_TYPES).optional(),
    resolution: z.enum(CLAIM_RESOLUTIONS).optional().meta({ description: 'What a claim asks for: a replacement (shipped, taking stock) or a refund' }),
    shipping: ReturnShippingInput.optional().meta({ description: 'How the items come back; absent: the customer’s own way' }),
    refund_method: z.enum(REFUND_METHODS).optional().meta({ description: 'Where the refund goes; absent: the order’s own payments' }),
  })
  .meta({ id: 'ReturnCreate' });
export type ReturnCreate = z.output<typeof ReturnCreate>;

export const ReturnReject = z.strictObject({ reason: z.string().trim().min(1).max(1000).optional() }).meta({ id: 'ReturnReject' });

export const ReceiveInput = z
  .strictObject({
    lines: z
      .array(
        z.strictObject({
          line_id: Uuid,
          quantity: Quantity,
          disposition: z.enum(['restock', 'damaged']).default('restock').meta({ description: 'Back into stock, or written off as damaged' }),
          warehouse_id: Uuid.optional().meta({ description: 'Where restocked units go; absent: the store’s default warehouse' }),
        }),
      )
      .max(250)
      .default([]),
    complete: z.boolean().default(false).meta({ description: 'Nothing more is coming: what did not come back leaves the return' }),
  })
  .meta({ id: 'ReturnReceive' });
export type ReceiveInput = z.output<typeof ReceiveInput>;

export const RefundInput = z
  .strictObject({
    method: z.enum(REFUND_METHODS).optional().meta({ description: 'Absent: the one the return was asked with' }),
    amount: Money.optional().meta({ description: 'Less than the return is worth (a fee kept, say); absent: all it is worth' }),
    note: z.string().trim().max(500).optional(),
  })
  .meta({ id: 'ReturnRefund' });
export type RefundInput = z.output<typeof RefundInput>;

export const ShipmentInput = z
  .strictObject({ carrier: Text(100).optional(), tracking_number: Text(200).optional() })
  .meta({ id: 'ReturnShipment' });
export type ShipmentInput = z.output<typeof ShipmentInput>;

export const PaymentInput = z
  .strictObject({ amount: Money.refine((n) => n > 0, 'must be more than 0'), reference: z.string().trim().max(200).optional() })
  .meta({ id: 'ReturnPayment' });

export const ReturnListQuery = listQuery({
  sorts: ['created_at', 'number'],
  defaultSort: '-created_at',
  filters: { status: z.enum(RETURN_STATUSES), kind: z.enum(RETURN_KINDS), order_id: Uuid, customer_id: Uuid },
  search: true,
});
export type ReturnListQuery = z.output<typeof ReturnListQuery>;

export const OrderReturnsQuery = pageQuery();

const ReturnLineOut = z.object({
  id: z.uuid(),
  kind: z.enum(RETURN_LINE_KINDS),
  line_item_id: z.uuid().nullable(),
  variant_id: z.uuid().nullable(),
  title: z.string(),
  sku: z.string().nullable(),
  quantity: Int,
  reason_code: z.string().nullable(),
  note: z.string().nullable(),
  received_quantity: Int,
  restocked_quantity: Int,
  damaged_quantity: Int,
  warehouse_id: z.uuid().nullable(),
  refund_amount: Int.meta({ description: 'Returned lines: what they give back (decision 0074); new items: what they cost, tax included' }),
  tax_amount: Int,
  unit_price: Int,
  shipped_quantity: Int,
});

export const ReturnOut = z
  .object({
    id: z.uuid(),
    number: Int,
    name: z.string().meta({ example: 'R12' }),
    order_id: z.uuid(),
    kind: z.enum(RETURN_KINDS),
    status: z.enum(RETURN_STATUSES),
    claim_type: z.enum(CLAIM_TYPES).nullable(),
    resolution: z.enum(CLAIM_RESOLUTIONS).nullable(),
    customer_id: z.uuid().nullable(),
    email: z.string(),
    requested_by: z.enum(['customer', 'staff']),
    reason_code: z.string().nullable(),
    note: z.string().nullable(),
    currency: z.string(),
    shipping: z
      .object({ method: z.enum(['customer', 'store_label']), carrier: z.string().nullable(), service: z.string().nullable(), amount: Int, weight_grams: Int })
      .nullable(),
    refund_method: z.enum(REFUND_METHODS).nullable(),
    items_amount: Int,
    tax_amount: Int,
    shipping_amount: Int,
    new_items_amount: Int,
    refund_amount: Int,
    account_amount: Int.meta({ description: 'Of refund_amount, what was taken off what the company owes for an order on account (method account); the rest went through the order’s payments' }),
    amount_due: Int,
    amount_paid: Int,
    refunds: z.array(z.object({ id: z.uuid(), payment_id: z.uuid(), amount: Int, status: z.string().meta({ description: 'The payments plugin’s refund status; planned until it is recorded' }), failure_reason: z.string().nullable() })),
    payment_url: z.string().nullable(),
    shipment: z
      .object({
        fulfillment_id: z.uuid().nullable().meta({ description: 'The order’s fulfilment that shipped the items (its line_items carry this return’s id); null for shipments recorded before fulfilments' }),
        carrier: z.string().nullable(),
        tracking_number: z.string().nullable(),
        shipped_at: Timestamp,
        items: z.array(z.object({ line_id: z.uuid(), variant_id: z.uuid(), quantity: Int })),
      })
      .nullable(),
    reject_reason: z.string().nullable(),
    lines: z.array(ReturnLineOut),
    approved_at: Timestamp.nullable(),
    received_at: Timestamp.nullable(),
    refunded_at: Timestamp.nullable(),
    closed_at: Timestamp.nullable(),
    cancelled_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Return' });

export const PaymentQuery = z.object({ token: z.string().min(1).max(4000) });
export const PaymentOut = z
  .object({
    tenant_id: z.uuid(),
    store_name: z.string(),
    return_id: z.uuid(),
    return_number: z.string(),
    order_id: z.uuid(),
    order_number: Int,
    currency: z.string(),
    amount_due: Int,
    amount_paid: Int,
    expires_at: Timestamp,
  })
  .meta({ id: 'ReturnPaymentLink' });

export const ReasonInput = z.strictObject({ code: ReasonCode, label: Text(200), active: z.boolean().optional() }).meta({ id: 'ReturnReasonInput' });
export const ReasonPatch = z.strictObject({ code: ReasonCode.optional(), label: Text(200).optional(), active: z.boolean().optional() }).meta({ id: 'ReturnReasonPatch' });
export const ReasonOut = z.object({ id: z.uuid(), code: z.string(), label: z.string(), active: z.boolean(), created_at: Timestamp, updated_at: Timestamp }).meta({ id: 'ReturnReason' });
export const ReasonListQuery = listQuery({ sorts: ['created_at'], defaultSort: 'created_at', filters: { active: z.enum(['true', 'false']) } });

export const SettingsInput = z
  .strictObject({
    shipping_refund: z.enum(SHIPPING_REFUND_POLICIES).meta({ description: 'none; proportional (the shipping’s share of the goods returned); full_return (all of it once everything came back)' }),
    window_days: z.number().int().min(1).max(3650).nullable().optional().meta({ description: 'Days after delivery a customer may ask; null: no limit' }),
  })
  .meta({ id: 'ReturnSettingsInput' });
export const SettingsOut = z
  .object({ shipping_refund: z.enum(SHIPPING_REFUND_POLICIES), window_days: Int.nullable(), updated_at: Timestamp.nullable() })
  .meta({ id: 'ReturnSettings' });
