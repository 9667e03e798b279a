import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { RuleSnapshot } from '../services/pricing.js';

export const QUOTE_STATUSES = ['draft', 'sent', 'accepted', 'rejected', 'converted'] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];

/** A quoted line, priced when the quote was made. */
export interface QuoteItem {
  variant_id: string;
  product_id: string;
  title: string;
  sku: string | null;
  quantity: number;
  /** The catalog's unit price when quoted. */
  catalog_price: number;
  /** The unit price through the customer's price list. */
  unit_price: number;
  total: number;
  rule_id: string | null;
  /** The rule as it was when quoted (kept for the order's snapshot; not in the API's item). */
  rule?: RuleSnapshot | null;
}

/** A priced offer to a B2B customer, numbered QT-000001, QT-000002, ... per store. */
export const Quote = defineEntity({
  name: 'B2BQuote',
  tableName: 'b2b_quote',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    sequence: p.integer(),
    number: p.string(),
    status: p.string().$type<QuoteStatus>(),
    b2bCustomerId: p.uuid(),
    priceListId: p.uuid().nullable(),
    currency: p.string(),
    items: p.json<QuoteItem[]>(),
    subtotal: p.bigint('number'),
    discount: p.bigint('number'),
    total: p.bigint('number'),
    notes: p.text().nullable(),
    /** Days the offer holds once sent. */
    validDays: p.integer(),
    validUntil: p.datetime().nullable(),
    sentAt: p.datetime().nullable(),
    /** Who sent it: the staff member, or the API key. */
    sentBy: p.string().nullable(),
    acceptedAt: p.datetime().nullable(),
    rejectedAt: p.datetime().nullable(),
    rejectionReason: p.text().nullable(),
    /** Who answered: `customer:<id>` (a buyer) or `store:<id>` (recorded by the store). */
    decidedBy: p.string().nullable(),
    orderId: p.uuid().nullable(),
    convertedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Quote = InferEntity<typeof Quote>;
