import type { Tx } from '@qhatu/core';
import type { AccountCredit } from '../entities/account-order.js';
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
  'b2b.account.credited',
] as const;

/** Goods of an order on account given back: what was set against the order, and the company's credit after. */
export function publishAccountCredited(tx: Tx, c: AccountCredit, after: { due: number; openBalance: number; available: number; currency: string }): void {
  tx.publish('b2b.account.credited', {
    id: c.id,
    b2b_customer_id: c.b2bCustomerId,
    order_id: c.orderId,
    currency: after.currency,
    amount: c.amount,
    applied: c.applied,
    reason: c.reason,
    source: { type: c.sourceType, id: c.sourceId },
    order_due: after.due,
    open_balance: after.openBalance,
    available: after.available,
    created_at: c.createdAt.toISOString(),
  });
}

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
