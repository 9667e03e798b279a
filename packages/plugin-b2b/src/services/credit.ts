import { Tenant, type Tx } from '@qhatu/core';
import { Order } from '@qhatu/plugin-orders';
import { AccountOrder } from '../entities/account-order.js';
import type { B2BCustomer } from '../entities/b2b-customer.js';

/** What a company owes on account now. */
export interface CreditState {
  currency: string;
  creditLimit: number;
  openBalance: number;
  available: number;
  open: AccountOrder[];
}

/** Orders that no longer count against the credit: paid, or ended without payment. */
const settled = (o: Pick<Order, 'paidAt' | 'status'>) => o.paidAt !== null || o.status === 'cancelled' || o.status === 'refunded';

/**
 * The open balance: the totals of the company's orders on account that are not paid yet (no
 * `paid_at`) and not cancelled or refunded. The orders are read through the orders plugin's
 * exported `Order` entity, in `tx`; the ones found settled are marked so and not read again.
 * Two statements, plus one update when some settled.
 */
export async function creditOf(tx: Tx, customer: B2BCustomer): Promise<CreditState> {
  const tenant = await tx.em.findOneOrFail(Tenant, { id: tx.tenantId });
  const open = await tx.em.find(AccountOrder, { b2bCustomerId: customer.id, settledAt: null }, { orderBy: { createdAt: 'asc' } });
  let stillOpen = open;
  if (open.length > 0) {
    const orders = await tx.em.find(Order, { id: { $in: open.map((a) => a.orderId) } }, { fields: ['id', 'paidAt', 'status'] });
    const closed = new Set(orders.filter(settled).map((o) => o.id));
    stillOpen = open.filter((a) => !closed.has(a.orderId));
    for (const a of open) if (closed.has(a.orderId)) a.settledAt = tx.now();
  }
  const openBalance = stillOpen.reduce((sum, a) => sum + a.total, 0);
  return { currency: tenant.currency, creditLimit: customer.creditLimit, openBalance, available: Math.max(0, customer.creditLimit - openBalance), open: stillOpen };
}
