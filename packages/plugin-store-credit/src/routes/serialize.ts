import type { StoreCreditEntry } from '../entities/entry.js';
import type { BalanceView } from '../services/accounts.js';

export const balanceOut = (b: BalanceView) => ({ currency: b.currency, balance: b.balance, updated_at: b.updatedAt.toISOString() });

export const entryOut = (e: StoreCreditEntry) => ({
  id: e.id,
  customer_id: e.customerId,
  currency: e.currency,
  kind: e.kind,
  amount: e.amount,
  balance_after: e.balanceAfter,
  reason: e.reason,
  source: { type: e.sourceType, id: e.sourceId ?? null },
  payment_id: e.paymentId ?? null,
  order_id: e.orderId ?? null,
  created_by: e.createdBy ?? null,
  created_at: e.createdAt.toISOString(),
});
