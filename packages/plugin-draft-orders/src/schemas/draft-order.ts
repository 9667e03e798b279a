import { listQuery, Money, Timestamp, Uuid } from '@qhatu/core';
import { ORDER_STATUSES, OrderAddress } from '@qhatu/plugin-orders';
import { z } from 'zod';
import { DRAFT_ORDER_STATUSES } from '../entities/draft-order.js';

export const MAX_LINES = 250;
const Text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max);
const Quantity = z.number().int('must be a whole number').min(1, 'must be at least 1').max(10_000);
const Reason = z.string().trim().min(1, 'must say why').max(500);
const TaxClass = z
  .string()
  .trim()
  .regex(/^[a-z][a-z0-9_-]{0,39}$/, 'must be 1 to 40 lower-case letters, digits, dashes or underscores, starting with a letter');

/** A draft's shipping address: the order's own, as the order keeps it. */
export const DraftAddress = OrderAddress;

const PriceOverride = z
  .strictObject({ amount: Money.meta({ description: 'Minor units per unit' }), reason: Reason })
  .meta({ id: 'DraftOrderPriceOverride', description: 'A unit price instead of the customer’s (needs draft-orders.override-price)' });

/** A catalog line (`variant_id`) or a custom line (`title` and `unit_price`). */
export const DraftLineInput = z
  .strictObject({
    variant_id: Uuid.optional().meta({ description: 'A catalog line: the variant, priced for the customer (B2B price lists included)' }),
    offer_id: Uuid.optional().meta({ description: "A catalog line bought on a seller's offer of the variant's product (a marketplace): at the offer's price, on its stock" }),
    quantity: Quantity,
    price_override: PriceOverride.optional(),
    title: Text(300).optional().meta({ description: 'A custom line: its title' }),
    unit_price: Money.optional().meta({ description: 'A custom line: minor units per unit' }),
    sku: z.string().trim().max(100).nullish(),
    tax_class: TaxClass.optional().meta({ description: 'A custom line: the tax class it is taxed at (default standard)' }),
    taxable: z.boolean().optional().meta({ description: 'A custom line: false makes it exempt (default true)' }),
    requires_shipping: z.boolean().optional().meta({ description: 'A custom line: whether it ships (default true)' }),
    weight_grams: z.number().int().min(0).max(10_000_000).optional().meta({ description: 'A custom line: unit weight for the shipping price' }),
  })
  .superRefine((l, ctx) => {
    if (l.variant_id) {
      for (const key of ['title', 'unit_price', 'sku', 'tax_class', 'taxable', 'requires_shipping', 'weight_grams'] as const) {
        if (l[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'is for custom lines only (a catalog line takes the catalog’s)' });
      }
      if (l.offer_id && l.price_override) ctx.addIssue({ code: 'custom', path: ['price_override'], message: 'a line on a seller’s offer is sold at the offer’s price' });
      return;
    }
    if (l.offer_id) ctx.addIssue({ code: 'custom', path: ['offer_id'], message: 'needs variant_id: an offer sells a catalog variant' });
    if (l.price_override) ctx.addIssue({ code: 'custom', path: ['price_override'], message: 'is for catalog lines: a custom line has its own unit_price' });
    if (l.title === undefined) ctx.addIssue({ code: 'custom', path: ['title'], message: 'is required for a custom line (or give variant_id)' });
    if (l.unit_price === undefined) ctx.addIssue({ code: 'custom', path: ['unit_price'], message: 'is required for a custom line (or give variant_id)' });
  })
  .meta({ id: 'DraftOrderLineInput' });
export type DraftLineInput = z.output<typeof DraftLineInput>;

export const DraftLinePatch = z
  .strictObject({
    quantity: Quantity.optional(),
    price_override: PriceOverride.nullable().optional().meta({ description: 'null: back to the customer’s price' }),
    title: Text(300).optional(),
    unit_price: Money.optional(),
    sku: z.string().trim().max(100).nullish(),
    tax_class: TaxClass.optional(),
    taxable: z.boolean().optional(),
    requires_shipping: z.boolean().optional(),
    weight_grams: z.number().int().min(0).max(10_000_000).nullish(),
  })
  .meta({ id: 'DraftOrderLinePatch' });
export type DraftLinePatch = z.output<typeof DraftLinePatch>;

export const ShippingInput = z
  .strictObject({
    carrier: Text(100),
    service: Text(100).meta({ description: "The rate's service_code" }),
    price: Money.optional().meta({ description: "A custom price (needs draft-orders.override-price and a reason); absent: the store's rate for the parcel and address" }),
    reason: Reason.optional(),
  })
  .refine((s) => s.price === undefined || s.reason !== undefined, { path: ['reason'], message: 'is required with a custom price' })
  .meta({ id: 'DraftOrderShippingInput' });
export type ShippingInput = z.output<typeof ShippingInput>;

export const DiscountInput = z
  .strictObject({
    code: z.string().trim().min(1).max(64).optional().meta({ description: 'A coupon, judged by the discounts plugin' }),
    amount: Money.optional().meta({ description: 'A manual amount off (needs draft-orders.override-price and a reason)' }),
    reason: Reason.optional(),
  })
  .superRefine((d, ctx) => {
    if ((d.code === undefined) === (d.amount === undefined)) ctx.addIssue({ code: 'custom', path: ['code'], message: 'give either a coupon code or a manual amount' });
    if (d.amount !== undefined && d.reason === undefined) ctx.addIssue({ code: 'custom', path: ['reason'], message: 'is required with a manual amount' });
    if (d.code !== undefined && d.reason !== undefined) ctx.addIssue({ code: 'custom', path: ['reason'], message: 'is for a manual amount' });
  })
  .meta({ id: 'DraftOrderDiscountInput' });
export type DiscountInput = z.output<typeof DiscountInput>;

const Email = z.email({ message: 'must be an e-mail address' }).max(320);
const Note = z.string().trim().max(2000);

export const DraftCreate = z
  .strictObject({
    customer_id: Uuid.optional(),
    email: Email.optional().meta({ description: "Where the invoice goes; the customer's e-mail when absent" }),
    shipping_address: DraftAddress.optional(),
    note: Note.optional(),
    line_items: z.array(DraftLineInput).max(MAX_LINES).optional(),
    shipping: ShippingInput.optional(),
    discount: DiscountInput.optional(),
  })
  .meta({ id: 'DraftOrderCreate' });
export type DraftCreate = z.output<typeof DraftCreate>;

export const DraftPatch = z
  .strictObject({
    customer_id: Uuid.nullable().optional(),
    email: Email.nullable().optional(),
    shipping_address: DraftAddress.nullable().optional(),
    note: Note.nullable().optional(),
    shipping: ShippingInput.nullable().optional(),
    discount: DiscountInput.nullable().optional(),
  })
  .meta({ id: 'DraftOrderPatch' });
export type DraftPatch = z.output<typeof DraftPatch>;

export const InvoiceSend = z
  .strictObject({
    notify: z.boolean().default(true).meta({ description: 'false: no e-mail; the answer’s invoice_url is shared some other way (a chat)' }),
    to: Email.optional().meta({ description: "Default: the draft's e-mail" }),
    subject: z.string().trim().min(1).max(200).optional(),
    message: z.string().trim().max(2000).optional().meta({ description: 'A few words above the invoice (plain text)' }),
  })
  .meta({ id: 'DraftOrderInvoiceSend' });
export type InvoiceSend = z.output<typeof InvoiceSend>;

export const DraftComplete = z
  .strictObject({
    payment: z
      .strictObject({
        method_id: Uuid.meta({ description: "One of the store's offline payment methods" }),
        reference: z.string().trim().min(1).max(200).nullish().meta({ description: "The bank's or wallet's operation number, the courier's slip" }),
        received_at: z.iso.datetime({ offset: true }).optional(),
        note: z.string().max(1000).nullish(),
      })
      .optional()
      .meta({ description: "Money received for the whole order by an offline method (needs payments.capture); absent: the order is placed and awaits payment" }),
  })
  .meta({ id: 'DraftOrderComplete' });
export type DraftComplete = z.output<typeof DraftComplete>;

export const DraftCancel = z.strictObject({ reason: z.string().trim().min(1).max(1000).optional() }).meta({ id: 'DraftOrderCancel' });

export const LineParams = z.object({ id: Uuid, line_id: Uuid });

const Int = z.number().int();

export const DraftLineOut = z
  .object({
    id: z.uuid(),
    variant_id: z.uuid().nullable().meta({ description: 'Null for a custom line' }),
    offer_id: z.uuid().nullable().meta({ description: "The seller's offer the line is bought on (a marketplace); null: the store's own stock" }),
    product_id: z.uuid().nullable(),
    title: z.string(),
    variant_title: z.string().nullable(),
    sku: z.string().nullable(),
    quantity: Int,
    catalog_price: Int.nullable().meta({ description: "The variant's catalog price; null for a custom line" }),
    unit_price: Int.meta({ description: "What one unit costs: the override, the offer's price, the customer's price (a B2B list's) or the catalog's" }),
    price_override: z.object({ amount: Int, reason: z.string(), set_by: z.uuid().nullable() }).nullable(),
    requires_shipping: z.boolean(),
    taxable: z.boolean(),
    tax_class: z.string(),
    weight_grams: Int.nullable(),
    subtotal: Int.meta({ description: 'quantity × unit_price' }),
    volume_discount: Int,
    discount_amount: Int.meta({ description: "The volume discount plus the line's share of the draft's discount, before tax" }),
    tax_rate: Int.meta({ description: 'Basis points' }),
    tax_amount: Int,
    total: Int.meta({ description: 'subtotal − discount_amount' }),
  })
  .meta({ id: 'DraftOrderLine' });

export const DraftOut = z
  .object({
    id: z.uuid(),
    number: Int,
    name: z.string().meta({ description: 'D and the number, e.g. D12' }),
    status: z.enum(DRAFT_ORDER_STATUSES),
    customer_id: z.uuid().nullable(),
    email: z.string().nullable(),
    currency: z.string(),
    line_items: z.array(DraftLineOut),
    shipping_address: DraftAddress.nullable(),
    shipping: z.object({ carrier: z.string(), service: z.string(), price: Int, custom: z.boolean(), reason: z.string().nullable() }).nullable(),
    discount: z
      .object({
        type: z.enum(['coupon', 'manual']),
        code: z.string().nullable(),
        value: Int.nullable(),
        reason: z.string().nullable(),
        applies: z.boolean(),
        refusal: z.string().nullable().meta({ description: "Why a coupon does not apply now (the discounts plugin's reason)" }),
        amount: Int,
      })
      .nullable(),
    note: z.string().nullable(),
    subtotal: Int,
    discount_total: Int.meta({ description: 'Volume discounts plus the coupon or manual amount' }),
    shipping_total: Int,
    tax_total: Int,
    shipping_tax: Int,
    prices_include_tax: z.boolean(),
    total: Int.meta({ description: 'subtotal − discount_total + shipping_total, plus tax_total when prices exclude tax' }),
    order_id: z.uuid().nullable(),
    invoice_url: z.string().nullable().meta({ description: 'The link to pay it, once sent (share it as it is)' }),
    invoice_sent_at: Timestamp.nullable(),
    completed_at: Timestamp.nullable(),
    cancelled_at: Timestamp.nullable(),
    cancel_reason: z.string().nullable(),
    created_by: z.uuid().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'DraftOrder' });

const DateFilter = z.iso.datetime({ offset: true, message: 'must be a date-time, e.g. 2026-05-04T00:00:00Z' });

export const DraftListQuery = listQuery({
  sorts: ['created_at', 'number'],
  defaultSort: '-created_at',
  search: true,
  filters: {
    status: z.enum(DRAFT_ORDER_STATUSES),
    customer_id: Uuid,
    created_from: DateFilter.meta({ description: 'Created at or after' }),
    created_to: DateFilter.meta({ description: 'Created before' }),
  },
});
export type DraftListQuery = z.output<typeof DraftListQuery>;

export const SettingsInput = z
  .strictObject({
    invoice_url: z
      .url({ protocol: /^https?$/, message: 'must be an http or https address' })
      .max(2000)
      .nullable()
      .meta({ description: "The storefront page an invoice link opens (`{token}` in it, or `?token=` added); null: the platform's (QHATU_DRAFT_ORDERS_INVOICE_URL)" }),
  })
  .meta({ id: 'DraftOrderSettingsReplace' });

export const SettingsOut = z
  .object({ invoice_url: z.string(), invoice_url_is_default: z.boolean(), link_ttl_days: Int, updated_at: Timestamp.nullable() })
  .meta({ id: 'DraftOrderSettings' });

export const InvoiceQuery = z.strictObject({ token: z.string().min(1).max(4000) });

/** What the invoice link shows the customer: the order to pay, and the store to pay it at. */
export const InvoiceOut = z
  .object({
    tenant_id: z.uuid().meta({ description: 'The store (X-Tenant-ID of the payment calls)' }),
    store_name: z.string(),
    draft_id: z.uuid(),
    draft_name: z.string(),
    order_id: z.uuid(),
    order_number: Int,
    order_status: z.enum(ORDER_STATUSES),
    currency: z.string(),
    line_items: z.array(z.object({ title: z.string(), variant_title: z.string(), sku: z.string().nullable(), quantity: Int, unit_price: Int, discount_amount: Int, tax_amount: Int, total: Int })),
    subtotal: Int,
    discount_total: Int,
    shipping_total: Int,
    tax_total: Int,
    prices_include_tax: z.boolean(),
    total: Int,
    amount_due: Int.meta({ description: 'What is left to pay (0 once paid)' }),
    expires_at: Timestamp,
  })
  .meta({ id: 'DraftOrderInvoice' });
