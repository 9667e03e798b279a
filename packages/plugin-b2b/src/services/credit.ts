import { Tenant, type Tx } from '@qhatu/core';
import { Order } from '@qhatu/plugin-orders';
import { AccountOrder } from '../entities/account-order.js';
import type { B2BCustomer } from '../entities/b2b-customer.js';

/** An order on account still owed, and how much of it. */
export interface OpenOrder {
  account: AccountOrder;
  /** The total less what returns set against it and what was paid of it (net of refunds). */
  due: number;
}

/** What a company owes on account now. */
export interface CreditState {
  currency: string;
  creditLimit: number;
  openBalance: number;
  available: number;
  open: OpenOrder[];
}

type Ledger = Pick<Order, 'paidAt' | 'status' | 'total' | 'amountPaid' | 'amountRefunded' | 'amountWaived'>;

/** The order's fields {@link owed} reads. */
export const LEDGER_FIELDS = ['id', 'paidAt', 'status', 'total', 'amountPaid', 'amountRefunded', 'amountWaived'] as const;

/**
 * What is still owed of an order on account: 0 once paid, cancelled or refunded; part payments
 * count, and so does the worth of goods the company sent back (the order waives it: `amount_waived`),
 * so the order's own `amount_due` and the company's open balance agree.
 */
export const owed = (o: Ledger) =>
  o.paidAt !== null || o.status === 'cancelled' || o.status === 'refunded' ? 0 : Math.max(0, o.total - o.amountWaived - (o.amountPaid - o.amountRefunded));

/**
 * The open balance: what the company still owes of its orders on account (quote conversions):
 * each order not paid (`paid_at`), cancelled or refunded counts its total less what returns set
 * against it and what was paid of it, net of refunds; an order shipped before payment still counts. The orders are read through
 * the orders plugin's exported `Order` entity, in `tx`; those found settled are marked so and
 * not read again. Two statements, plus one update when some settled.
 */
export async function creditOf(tx: Tx, customer: B2BCustomer): Promise<CreditState> {
  const tenant = await tx.em.findOneOrFail(Tenant, { id: tx.tenantId });
  const accounts = await tx.em.find(AccountOrder, { b2bCustomerId: customer.id, settledAt: null }, { orderBy: { createdAt: 'asc' } });
  const open: OpenOrder[] = [];
  if (accounts.length > 0) {
    const orders = new Map(
      (await tx.em.find(Order, { id: { $in: accounts.map((a) => a.orderId) } }, { fields: [...LEDGER_FIELDS] })).map((o) => [o.id, o]),
    );
    for (const account of accounts) {
      const order = orders.get(account.orderId);
      const due = order ? owed(order) : 0;
      if (due > 0) open.push({ account, due });
      else account.settledAt = tx.now();
    }
  }
  const openBalance = open.reduce((sum, o) => sum + o.due, 0);
  return { currency: tenant.currency, creditLimit: customer.creditLimit, openBalance, available: Math.max(0, customer.creditLimit - openBalance), open };
}
