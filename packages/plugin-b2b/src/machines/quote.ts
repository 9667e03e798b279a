import { defineMachine } from '@qhatu/core';
import { QUOTE_STATUSES, type Quote, type QuoteStatus } from '../entities/quote.js';

/**
 * draft → sent (send: e-mailed as PDF) → accepted or rejected (the buyer's answer, or the store
 * recording it) ; accepted → converted (placed as an order on account, once).
 */
export const quoteMachine = defineMachine<Quote, QuoteStatus>({
  name: 'quote',
  field: 'status',
  states: QUOTE_STATUSES,
  transitions: {
    send: { from: ['draft'], to: 'sent', event: 'b2b.quote.sent' },
    accept: { from: ['sent'], to: 'accepted', event: 'b2b.quote.accepted' },
    reject: { from: ['sent'], to: 'rejected', event: 'b2b.quote.rejected' },
    convert: { from: ['accepted'], to: 'converted', event: 'b2b.quote.converted' },
  },
  eventData: (q) => ({
    id: q.id,
    number: q.number,
    status: q.status,
    b2b_customer_id: q.b2bCustomerId,
    currency: q.currency,
    total: q.total,
    order_id: q.orderId ?? null,
    sent_at: q.sentAt?.toISOString() ?? null,
    valid_until: q.validUntil?.toISOString() ?? null,
  }),
});
