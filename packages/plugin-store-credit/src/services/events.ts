import type { Tx } from '@qhatu/core';
import type { EntryKind, StoreCreditEntry } from '../entities/entry.js';

export const CREDIT_GRANTED = 'store_credit.credit.granted';
export const CREDIT_DEDUCTED = 'store_credit.credit.deducted';
export const CREDIT_SPENT = 'store_credit.credit.spent';
export const CREDIT_RESTORED = 'store_credit.credit.restored';

/** Every event type this plugin publishes: one per kind of ledger entry. */
export const STORE_CREDIT_EVENTS = [CREDIT_GRANTED, CREDIT_DEDUCTED, CREDIT_SPENT, CREDIT_RESTORED];

const EVENT_OF: Record<EntryKind, string> = { grant: CREDIT_GRANTED, deduct: CREDIT_DEDUCTED, spend: CREDIT_SPENT, restore: CREDIT_RESTORED };

/** The entry as webhooks and jobs receive it: what changed, why, and the balance it left. */
export function publishEntry(tx: Tx, entry: StoreCreditEntry): void {
  tx.publish(EVENT_OF[entry.kind], {
    id: entry.id,
    customer_id: entry.customerId,
    currency: entry.currency,
    kind: entry.kind,
    amount: entry.amount,
    balance: entry.balanceAfter,
    reason: entry.reason,
    source: { type: entry.sourceType, id: entry.sourceId ?? null },
    payment_id: entry.paymentId ?? null,
    order_id: entry.orderId ?? null,
    created_at: entry.createdAt.toISOString(),
  });
}
