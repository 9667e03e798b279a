import { AppError, type Tx } from '@qhatu/core';
import { ACCOUNT_CREDIT, type AccountCreditService, type AccountOfOrder } from '@qhatu/plugin-b2b';
import type { Order } from '@qhatu/plugin-orders';
import type { DependencyContainer } from 'tsyringe';

/** Refunds of orders placed on a company's account: the B2B plugin's `ACCOUNT_CREDIT` when it is installed. */
export interface AccountRefunds {
  /** The order's account (what the company owes for it), or null: not on account, or no B2B plugin. */
  accountOf(tx: Tx, order: Pick<Order, 'id'>): Promise<AccountOfOrder | null>;
  /** 422 ACCOUNT_CREDIT_UNAVAILABLE without the B2B plugin, 422 ORDER_NOT_ON_ACCOUNT for an order not placed on account. */
  assertOnAccount(tx: Tx, order: Pick<Order, 'id'>, path: string): Promise<AccountOfOrder>;
  /**
   * Sets `amount` against what the company owes for the order, inside `tx`, once per return;
   * answers what it took off (`applied`): the rest is what the company paid already.
   */
  credit(tx: Tx, input: { order: Order; returnId: string; returnName: string; amount: number }): Promise<{ applied: number; companyName: string }>;
}

export const ACCOUNT_REFUNDS = Symbol.for('qhatu.returns.account-refunds');

class Accounts implements AccountRefunds {
  constructor(private readonly accounts: AccountCreditService | null) {}

  async accountOf(tx: Tx, order: Pick<Order, 'id'>): Promise<AccountOfOrder | null> {
    return this.accounts ? this.accounts.ofOrder(tx, order.id) : null;
  }

  async assertOnAccount(tx: Tx, order: Pick<Order, 'id'>, path: string): Promise<AccountOfOrder> {
    if (!this.accounts) {
      throw AppError.unprocessable('ACCOUNT_CREDIT_UNAVAILABLE', 'This store sells on no company accounts: refund through the order’s payments', [
        { path, message: 'account needs the B2B plugin' },
      ]);
    }
    const account = await this.accounts.ofOrder(tx, order.id);
    if (!account) {
      throw AppError.unprocessable('ORDER_NOT_ON_ACCOUNT', 'The order was not placed on a company’s account: refund through its payments or as store credit', [
        { path, message: 'the order is not on account' },
      ]);
    }
    return account;
  }

  async credit(tx: Tx, input: { order: Order; returnId: string; returnName: string; amount: number }) {
    const account = await this.assertOnAccount(tx, input.order, 'body.method');
    const done = await this.accounts!.credit(tx, {
      orderId: input.order.id,
      amount: input.amount,
      reason: `Return ${input.returnName} of order #${input.order.number}`,
      source: { type: 'return', id: input.returnId },
    });
    return { applied: done.applied, companyName: account.companyName };
  }
}

/** The B2B plugin's service when installed, whichever order the plugins register in. */
export function accountRefundsOf(container: DependencyContainer): AccountRefunds {
  return new Accounts(container.isRegistered(ACCOUNT_CREDIT, true) ? container.resolve<AccountCreditService>(ACCOUNT_CREDIT) : null);
}
