import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AppError, type Tx } from '@qhatu/core';
import { Order, Orders } from '@qhatu/plugin-orders';
import { inject, injectable } from 'tsyringe';
import { AccountCredit, AccountOrder } from '../entities/account-order.js';
import { B2BCustomer } from '../entities/b2b-customer.js';
import { lockCustomer } from './b2b-customers.js';
import { creditOf, LEDGER_FIELDS, owed } from './credit.js';
import { publishAccountCredited } from './events.js';

/** The service other plugins give goods of an order on account back through (`container.resolve(ACCOUNT_CREDIT)`): plugin-returns. */
export const ACCOUNT_CREDIT = Symbol.for('qhatu.b2b.account-credit');

/** An order placed on a company's account, as it stands. */
export interface AccountOfOrder {
  b2bCustomerId: string;
  companyName: string;
  currency: string;
  total: number;
  /** What returns set against it so far. */
  credited: number;
  /** What the company still owes for it. */
  due: number;
}

export interface AccountCreditInput {
  orderId: string;
  /** The worth given back, minor units above zero. */
  amount: number;
  /** 1 to 500 characters, kept with the credit. */
  reason: string;
  /** Credits once: the same `{type, id}` again answers the first credit and adds nothing. */
  source: { type: string; id: string };
}

export interface AccountCreditResult {
  creditId: string;
  amount: number;
  /** What it took off what the company owes for the order: at most what was owed; the rest is the company's money to give back. */
  applied: number;
  /** What the company still owes for the order, and its credit available now. */
  due: number;
  available: number;
  /** The source had credited already: nothing was added. */
  repeated: boolean;
}

/** The contract `ACCOUNT_CREDIT` resolves to. Kept stable for the plugins that call it. */
export interface AccountCreditService {
  /** The order's account, or null for an order not placed on account. */
  ofOrder(tx: Tx, orderId: string): Promise<AccountOfOrder | null>;
  /**
   * Sets `amount` against what the company owes for the order, inside the caller's transaction
   * (under the company's row lock, as conversions take it). 404 ACCOUNT_ORDER_NOT_FOUND for an
   * order not on account.
   */
  credit(tx: Tx, input: AccountCreditInput): Promise<AccountCreditResult>;
}

/**
 * Goods of orders on account given back: their worth is set against what the company owes for the
 * order (the order waives it), so its open balance and the order's `amount_due` drop and its
 * available credit rises by what they took off; what the company had paid already is for the
 * caller to give back through the order's payments.
 */
@injectable()
export class AccountCredits implements AccountCreditService {
  constructor(@inject(Orders) private readonly orders: Orders) {}

  async ofOrder(tx: Tx, orderId: string): Promise<AccountOfOrder | null> {
    const account = await tx.em.findOne(AccountOrder, { orderId }, { refresh: true });
    if (!account) return null;
    const customer = await tx.em.findOneOrFail(B2BCustomer, { id: account.b2bCustomerId });
    const order = await tx.em.findOne(Order, { id: orderId }, { fields: [...LEDGER_FIELDS] });
    return {
      b2bCustomerId: account.b2bCustomerId, companyName: customer.companyName, currency: account.currency.trim(), total: account.total,
      credited: account.credited, due: order ? owed(order) : 0,
    };
  }

  async credit(tx: Tx, input: AccountCreditInput): Promise<AccountCreditResult> {
    checkCredit(input);
    const found = await tx.em.findOne(AccountOrder, { orderId: input.orderId });
    if (!found) throw AppError.notFound('Order on account', 'ACCOUNT_ORDER_NOT_FOUND');
    // The company's row first (the lock conversions take), then the order's account row.
    const customer = await lockCustomer(tx, found.b2bCustomerId);
    const account = await tx.em.findOneOrFail(AccountOrder, { orderId: input.orderId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    // Read after the locks: a second credit of the same source waited for the first and sees it.
    const earlier = await tx.em.findOne(AccountCredit, { sourceType: input.source.type, sourceId: input.source.id }, { refresh: true });
    const order = await tx.em.findOne(Order, { id: input.orderId }, { fields: [...LEDGER_FIELDS], refresh: true });
    if (earlier) {
      const state = await creditOf(tx, customer);
      return { creditId: earlier.id, amount: earlier.amount, applied: earlier.applied, due: order ? owed(order) : 0, available: state.available, repeated: true };
    }
    const before = order ? owed(order) : 0;
    const applied = Math.min(input.amount, before);
    // The whole worth is waived: what the company had paid of it goes back through the payments.
    if (order) await this.orders.waive(tx, order.id, input.amount, `Waived for goods given back to the company's account (${input.source.type} ${input.source.id})`);
    const at = tx.now();
    const credit = tx.em.create(AccountCredit, {
      id: randomUUID(), tenantId: tx.tenantId, orderId: account.orderId, b2bCustomerId: account.b2bCustomerId, amount: input.amount, applied,
      reason: input.reason.trim(), sourceType: input.source.type, sourceId: input.source.id, createdAt: at,
    });
    account.credited += input.amount;
    const due = before - applied;
    if (due === 0 && !account.settledAt) account.settledAt = at;
    const state = await creditOf(tx, customer);
    publishAccountCredited(tx, credit, { due, openBalance: state.openBalance, available: state.available, currency: account.currency.trim() });
    return { creditId: credit.id, amount: credit.amount, applied, due, available: state.available, repeated: false };
  }
}

/** A credit's input, checked: the contract is called by code, so a mistake there is a 400 naming the field. */
function checkCredit(input: AccountCreditInput): void {
  const details = [];
  if (!Number.isSafeInteger(input.amount) || input.amount <= 0) details.push({ path: 'amount', message: 'must be a whole number of minor units above 0' });
  const reason = input.reason?.trim() ?? '';
  if (reason.length < 1 || reason.length > 500) details.push({ path: 'reason', message: 'must be 1 to 500 characters' });
  if (!input.source?.type || input.source.type.length > 50) details.push({ path: 'source.type', message: 'must be 1 to 50 characters' });
  if (!input.source?.id || String(input.source.id).length > 200) details.push({ path: 'source.id', message: 'must be 1 to 200 characters' });
  if (details.length) throw AppError.validation('The account credit is not valid', details);
}
