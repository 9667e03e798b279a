import { LockMode } from '@mikro-orm/core';
import { AppError, TenantContext, type Tx } from '@qhatu/core';
import { LineItem, Order } from '@qhatu/plugin-orders';
import { Return, ReturnLine } from '../entities/return.js';

export const returnNotFound = () => AppError.notFound('Return', 'RETURN_NOT_FOUND');
export const orderNotFound = () => AppError.notFound('Order', 'ORDER_NOT_FOUND');

/** The customer a customer token speaks for; undefined for staff and admin keys. */
export function customerCaller(): string | undefined {
  const principal = TenantContext.principal();
  if (principal?.kind !== 'customer') return undefined;
  if (!principal.subjectId) throw AppError.unauthenticated('This token does not name a customer');
  return principal.subjectId;
}

/** The return, locked for this transaction (every change of a return starts here), or 404; a customer sees only their own. */
export async function lockReturn(tx: Tx, id: string, ownerId?: string): Promise<Return> {
  const found = await tx.em.findOne(Return, ownerId ? { id, customerId: ownerId } : { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!found) throw returnNotFound();
  return found;
}

/**
 * The order, its row locked: the returns of one order are worked out one after the other (what is
 * left to return, what was given back already), as its fulfilments and payments are. 404 for any
 * other store's order, or another customer's.
 */
export async function lockOrder(tx: Tx, id: string, ownerId?: string): Promise<Order> {
  const order = await tx.em.findOne(Order, ownerId ? { id, customerId: ownerId } : { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!order) throw orderNotFound();
  return order;
}

export const linesOfOrder = (tx: Tx, orderId: string) => tx.em.find(LineItem, { orderId }, { orderBy: { position: 'asc' } });
export const linesOfReturn = (tx: Tx, returnId: string) => tx.em.find(ReturnLine, { returnId }, { orderBy: { position: 'asc' }, refresh: true });

/** `1234` PEN → `PEN 12.34`: the currency's own number of decimals. */
export function money(minor: number, currency: string): string {
  const code = currency.trim();
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
  return `${code} ${(minor / 10 ** digits).toFixed(digits)}`;
}

/** R12, as staff and customers see a return's number. */
export const returnName = (r: Pick<Return, 'number'>) => `R${r.number}`;
