import { listQuery, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { QUOTE_STATUSES } from '../entities/quote.js';
import { OptionalText } from './common.js';

export const MAX_QUOTE_ITEMS = 250;
export const MAX_QUANTITY = 100_000;

export const QuoteCreate = z
  .strictObject({
    b2b_customer_id: Uuid,
    items: z
      .array(z.strictObject({ variant_id: Uuid, quantity: z.number().int('must be a whole number').min(1, 'must be at least 1').max(MAX_QUANTITY) }))
      .min(1, 'give at least one item')
      .max(MAX_QUOTE_ITEMS),
    notes: OptionalText(5000),
    valid_days: z.number().int().min(1).max(365).default(30).meta({ description: 'How long the offer holds once sent (days); default 30' }),
  })
  .meta({ id: 'B2BQuoteCreate' });
export type QuoteCreate = z.output<typeof QuoteCreate>;

export const QuoteItemOut = z.object({
  variant_id: z.uuid(),
  product_id: z.uuid(),
  title: z.string(),
  sku: z.string().nullable(),
  quantity: z.number().int(),
  catalog_price: z.number().int().meta({ description: 'The catalog unit price when quoted' }),
  unit_price: z.number().int().meta({ description: "The unit price through the customer's price list" }),
  total: z.number().int(),
  rule_id: z.uuid().nullable().meta({ description: 'The price-list rule that gave unit_price' }),
});

export const QuoteOut = z
  .object({
    id: z.uuid(),
    number: z.string().meta({ example: 'QT-000042' }),
    status: z.enum(QUOTE_STATUSES),
    b2b_customer_id: z.uuid(),
    price_list_id: z.uuid().nullable(),
    currency: z.string(),
    items: z.array(QuoteItemOut),
    subtotal: z.number().int().meta({ description: 'Σ catalog_price × quantity' }),
    discount: z.number().int().meta({ description: 'What the price list takes off: subtotal − total' }),
    total: z.number().int().meta({ description: 'Σ item totals' }),
    notes: z.string().nullable(),
    valid_days: z.number().int(),
    valid_until: Timestamp.nullable(),
    sent_at: Timestamp.nullable(),
    sent_by: z.string().nullable(),
    accepted_at: Timestamp.nullable(),
    rejected_at: Timestamp.nullable(),
    rejection_reason: z.string().nullable(),
    decided_by: z.string().nullable(),
    order_id: z.uuid().nullable(),
    converted_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'B2BQuote' });

export const QuoteSentOut = z
  .object({ id: z.uuid(), number: z.string(), status: z.literal('sent'), sent_at: Timestamp })
  .meta({ id: 'B2BQuoteSent' });

export const QuoteReject = z.strictObject({ reason: OptionalText(2000) }).meta({ id: 'B2BQuoteReject' });

const ShipTo = z.strictObject({
  first_name: z.string().trim().min(1).max(100),
  last_name: z.string().trim().min(1).max(100),
  company: z.string().max(200).nullish(),
  address1: z.string().trim().min(1).max(300),
  address2: z.string().max(300).nullish(),
  city: z.string().trim().min(1).max(100),
  province: z.string().max(100).nullish(),
  country_code: z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code in capitals, e.g. PE'),
  zip: z.string().trim().min(1).max(20),
  phone: z.string().max(30).nullish(),
});
export const QuoteConvert = z
  .strictObject({ shipping_address: ShipTo.optional().meta({ description: 'Required when an item requires shipping' }) })
  .meta({ id: 'B2BQuoteConvert' });
export type QuoteConvert = z.output<typeof QuoteConvert>;

export const QuoteListQuery = listQuery({
  filters: { status: z.enum(QUOTE_STATUSES), b2b_customer_id: Uuid },
  sorts: ['created_at'],
  defaultSort: '-created_at',
});
export type QuoteListQuery = z.output<typeof QuoteListQuery>;

export const OrderPricesOut = z
  .object({
    order_id: z.uuid(),
    b2b_customer_id: z.uuid(),
    quote_id: z.uuid().nullable(),
    lines: z.array(
      z.object({
        variant_id: z.uuid(),
        catalog_price: z.number().int(),
        unit_price: z.number().int(),
        price_list_id: z.uuid().nullable(),
        rule: z
          .object({ id: z.uuid(), type: z.string(), value: z.number().int(), applies_to: z.string(), category_id: z.uuid().nullable(), product_id: z.uuid().nullable() })
          .nullable(),
      }),
    ),
  })
  .meta({ id: 'B2BOrderPrices' });
