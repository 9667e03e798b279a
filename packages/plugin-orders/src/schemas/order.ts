import { customFieldsIn, customFieldsOut, listQuery, Money, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { FULFILLMENT_STATUSES } from '../entities/fulfillment.js';
import { ORDER_STATUSES } from '../entities/order.js';

export const MAX_LINES = 250;
export const MAX_QUANTITY = 10_000;

const Text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max);
const Quantity = z.number().int('must be a whole number').min(1, 'must be at least 1').max(MAX_QUANTITY);

export const OrderAddress = z
  .strictObject({
    first_name: Text(100),
    last_name: Text(100),
    company: z.string().max(200).nullish(),
    address1: Text(300),
    address2: z.string().max(300).nullish(),
    city: Text(100),
    province: z.string().max(100).nullish(),
    country_code: z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code in capitals, e.g. PE'),
    zip: Text(20),
    phone: z.string().max(30).nullish(),
  })
  .meta({ id: 'OrderShippingAddress' });

export const OrderCreate = z
  .strictObject({
    customer_email: z.email({ message: 'must be an e-mail address' }).max(320),
    line_items: z
      .array(
        z.strictObject({
          variant_id: Uuid,
          quantity: Quantity,
          price: Money.optional().meta({ description: "Ignored for pricing: the catalog's price is charged (the response shows it)" }),
        }),
      )
      .min(1, 'give at least one line')
      .max(MAX_LINES),
    shipping_address: OrderAddress.optional().meta({ description: 'Required when a line requires shipping' }),
    custom_fields: customFieldsIn('order').optional(),
  })
  .meta({ id: 'OrderCreate' });
export type OrderCreate = z.output<typeof OrderCreate>;

/** What changes of an order besides its moves: its custom fields. */
export const OrderPatch = z.strictObject({ custom_fields: customFieldsIn('order') }).meta({ id: 'OrderPatch' });

export const OrderLineItemOut = z
  .object({
    id: z.uuid(),
    variant_id: z.uuid().nullable().meta({ description: 'Null for a custom line (a draft order\'s line of no catalog variant: it holds no stock)' }),
    product_id: z.uuid().nullable(),
    title: z.string().meta({ description: 'The product title at the time of purchase' }),
    variant_title: z.string(),
    sku: z.string().nullable(),
    quantity: z.number().int(),
    fulfilled_quantity: z.number().int().meta({ description: 'Units already in a fulfillment' }),
    backordered_quantity: z.number().int().meta({ description: 'Units the store keeps stock of that the order does not hold: sold as a backorder (or by staff without stock), shipped once stock arrives' }),
    unit_price_amount: z.number().int(),
    total_amount: z.number().int(),
    requires_shipping: z.boolean(),
    discount_amount: z.number().int().meta({ description: "The line's share of the order's discounts, taken before tax" }),
    tax_class: z.string().meta({ description: 'The tax class the line was taxed at (`standard`, `exempt`, or a class the store named)' }),
    tax_rate: z.number().int().meta({ description: 'Basis points (1800 = 18 %), as applied when the order was placed' }),
    tax_amount: z.number().int().meta({ description: "Tax of the line after its discounts, rounded to the minor unit; the lines' and the shipping's add up to tax_total" }),
    offer_id: z.uuid().nullable().meta({ description: "The seller's offer the line was bought on (marketplace); null for the store's own stock" }),
  })
  .meta({ id: 'OrderLineItem' });

export const OrderFulfillmentOut = z
  .object({
    id: z.uuid(),
    order_id: z.uuid(),
    status: z.enum(FULFILLMENT_STATUSES),
    carrier: z.string().nullable(),
    tracking_number: z.string().nullable(),
    tracking_url: z.string().nullable(),
    estimated_delivery: Timestamp.nullable(),
    line_items: z.array(
      z.object({
        line_item_id: z.uuid().nullable().meta({ description: "The order's line shipped; null for a replacement item (see return_id)" }),
        variant_id: z.uuid().nullable(),
        title: z.string(),
        quantity: z.number().int(),
        return_id: z.uuid().nullable().meta({ description: "The return (an exchange's new items, a claim's replacement) this item ships for; null for the order's own lines" }),
      }),
    ),
    shipped_at: Timestamp,
    delivered_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'OrderFulfillment' });

export const OrderOut = z
  .object({
    id: z.uuid(),
    number: z.number().int(),
    status: z.enum(ORDER_STATUSES),
    customer_id: z.uuid().nullable(),
    customer_email: z.string(),
    currency: z.string(),
    subtotal: z.number().int(),
    shipping_total: z.number().int(),
    discount_total: z.number().int(),
    tax_total: z.number().int().meta({ description: "The lines' tax plus shipping_tax" }),
    shipping_tax: z.number().int(),
    prices_include_tax: z.boolean().meta({ description: 'Whether the prices include the tax: then total does not add tax_total (it is shown inside the prices)' }),
    total: z.number().int().meta({ description: 'What is due: subtotal − discount_total + shipping_total, plus tax_total when prices_include_tax is false' }),
    amount_paid: z.number().int().meta({ description: 'Sum of the confirmed payments (refunds not deducted)' }),
    amount_refunded: z.number().int().meta({ description: 'Sum refunded of those payments' }),
    amount_waived: z.number().int().meta({
      description: 'What the store gave up of the total: money refunded outside an edit (goodwill, a return), kept as given once an edit changed the order, so that the edit asks for or sends back its difference only',
    }),
    amount_due: z.number().int().meta({ description: 'What is left to pay while the order awaits payment (pending or confirmed, or shipped before it was paid: cash on delivery, an order on account): total − amount_waived − (amount_paid − amount_refunded); 0 otherwise' }),
    line_items: z.array(OrderLineItemOut),
    shipping_address: OrderAddress.nullable(),
    fulfillments: z.array(OrderFulfillmentOut),
    history: z.array(
      z.object({ action: z.string(), from: z.enum(ORDER_STATUSES), to: z.enum(ORDER_STATUSES), note: z.string().nullable(), at: Timestamp }),
    ),
    cancel_reason: z.string().nullable(),
    cancelled_at: Timestamp.nullable(),
    paid_at: Timestamp.nullable(),
    fulfilled_at: Timestamp.nullable(),
    custom_fields: customFieldsOut('order'),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Order' });

export const OrderListQuery = listQuery({
  sorts: ['created_at', 'number', 'total'],
  defaultSort: '-created_at',
  search: true,
  filters: {
    status: z.enum(ORDER_STATUSES),
    customer_id: Uuid,
    customer_email: z.string().trim().min(1).max(320),
  },
});
export type OrderListQuery = z.output<typeof OrderListQuery>;

const Note = z.string().trim().min(1, 'must not be empty').max(1000);
export const OrderCancel = z.strictObject({ reason: Note.optional() }).meta({ id: 'OrderCancel' });
export const OrderNote = z.strictObject({ note: Note.optional() }).meta({ id: 'OrderNote' });
export const OrderUndoReadyToShip = z.strictObject({ reason: Note }).meta({ id: 'OrderUndoReadyToShip' });

const Carrier = z.string().trim().min(1).max(100);
const TrackingNumber = z.string().trim().min(1).max(200);
const TrackingUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2048);

export const OrderInTransit = z
  .strictObject({
    carrier: Carrier.optional(),
    tracking_number: TrackingNumber.optional(),
    tracking_url: TrackingUrl.optional(),
    estimated_delivery: Timestamp.optional(),
  })
  .meta({ id: 'OrderInTransit' });
export type OrderInTransit = z.output<typeof OrderInTransit>;

export const FulfillmentCreate = z
  .strictObject({
    carrier: Carrier.optional(),
    tracking_number: TrackingNumber.optional(),
    tracking_url: TrackingUrl.optional(),
    line_items: z
      .array(z.strictObject({ variant_id: Uuid, quantity: Quantity, title: z.string().max(500).optional() }))
      .min(1, 'give at least one line')
      .max(MAX_LINES)
      .optional()
      .meta({ description: 'What this shipment holds; absent: everything left to ship' }),
    estimated_delivery: Timestamp.optional(),
  })
  .meta({ id: 'OrderFulfillmentCreate' });
export type FulfillmentCreate = z.output<typeof FulfillmentCreate>;

