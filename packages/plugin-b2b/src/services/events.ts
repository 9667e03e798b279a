import type { Tx } from '@qhatu/core';
import type { B2BCustomer } from '../entities/b2b-customer.js';
import type { Quote } from '../entities/quote.js';

/** Every event type this plugin publishes. */
export const B2B_EVENTS = [
  'b2b.customer.created',
  'b2b.customer.updated',
  'b2b.quote.created',
  'b2b.quote.sent',
  'b2b.quote.accepted',
  'b2b.quote.rejected',
  'b2b.quote.converted',
] as const;

export function publishCustomer(tx: Tx, type: 'b2b.customer.created' | 'b2b.customer.updated', c: B2BCustomer, changed?: string[]): void {
  tx.publish(type, {
    id: c.id,
    company_name: c.companyName,
    ruc: c.ruc,
    email: c.email,
    status: c.status,
    credit_limit: c.creditLimit,
    price_list_id: c.priceListId ?? null,
    ...(changed ? { changed } : {}),
  });
}

export function publishQuoteCreated(tx: Tx, q: Quote): void {
  tx.publish('b2b.quote.created', {
    id: q.id,
    number: q.number,
    status: q.status,
    b2b_customer_id: q.b2bCustomerId,
    currency: q.currency,
    subtotal: q.subtotal,
    discount: q.discount,
    total: q.total,
    items: q.items.map((i) => ({ variant_id: i.variant_id, quantity: i.quantity, unit_price: i.unit_price, total: i.total })),
  });
}
