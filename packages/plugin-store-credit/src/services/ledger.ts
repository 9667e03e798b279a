import { randomUUID } from 'node:crypto';
import { AppError, Database, TenantContext, type Tx } from '@qhatu/core';
import { Customer } from '@qhatu/plugin-customers';
import { inject, injectable } from 'tsyringe';
import type { EntryKind, StoreCreditEntry } from '../entities/entry.js';
import { StoreCreditEntry as Entry } from '../entities/entry.js';
import { publishEntry } from './events.js';

/** The service other plugins add credit through (`container.resolve(STORE_CREDIT)`): plugin-returns, a loyalty scheme. */
export const STORE_CREDIT = Symbol.for('qhatu.store-credit.service');

/** What gave or took credit: a return, a staff member, a refund, a payment, or a plugin's own kind, with its id. */
export interface CreditSource {
  type: 'return' | 'staff' | 'refund' | 'payment' | 'payment_refund' | (string & {});
  id: string | null;
}

export interface GrantInput {
  customerId: string;
  /** ISO 4217, in capitals. */
  currency: string;
  /** Minor units, more than zero. */
  amount: number;
  /** Shown to the customer and the staff, 1 to 500 characters. */
  reason: string;
  /** A source other than `staff` credits once: granting it again answers the first entry. */
  source: CreditSource;
}

export interface GrantResult {
  entryId: string;
  /** The customer's balance in that currency once the entry counts. */
  balance: number;
}

/** The contract `STORE_CREDIT` resolves to. Kept stable for the plugins that call it. */
export interface StoreCreditService {
  /** Adds credit inside the caller's transaction (its events commit with it). */
  grant(tx: Tx, input: GrantInput): Promise<GrantResult>;
}

interface Change {
  customerId: string;
  currency: string;
  kind: EntryKind;
  /** Signed minor units: positive adds, negative takes. */
  amount: number;
  reason: string;
  source: CreditSource;
  paymentId?: string | null;
  orderId?: string | null;
}

/** The balance could not cover a debit; nothing was written. */
export class InsufficientCredit extends Error {
  constructor(readonly balance: number, readonly requested: number, readonly currency: string) {
    super(`The customer's store credit is ${balance} ${currency}: it cannot cover ${requested}`);
  }
}

const CURRENCY = /^[A-Z]{3}$/;

export const customerNotFound = (path = 'customer_id') =>
  new AppError(404, 'CUSTOMER_NOT_FOUND', 'Customer not found', [{ path, message: 'no such customer in this store' }]);

export function insufficient(error: InsufficientCredit, path = 'body.amount'): AppError {
  return AppError.unprocessable('INSUFFICIENT_STORE_CREDIT', error.message, [
    { path, message: `must be at most the balance, ${error.balance}`, balance: error.balance, currency: error.currency },
  ]);
}

/**
 * The store-credit ledger: the one writer of balances and entries. Every change locks the
 * customer's balance row in that currency (`FOR UPDATE`), so changes of one balance queue and each
 * sees the ones before it; a debit the balance cannot cover is refused before anything is written,
 * and the table's `CHECK (balance >= 0)` stands behind that. The entry, the balance and the event
 * are written in the caller's one transaction: all of them, or none.
 */
@injectable()
export class StoreCreditLedger implements StoreCreditService {
  constructor(@inject(Database) private readonly db: Database) {}

  async grant(tx: Tx, input: GrantInput): Promise<GrantResult> {
    checkGrant(input);
    const { entry } = await this.apply(tx, { ...input, kind: 'grant' });
    return { entryId: entry.id, balance: entry.balanceAfter };
  }

  /**
   * Writes one change under the balance's lock and answers its entry. A source other than staff
   * that already changed this balance answers that entry again (`repeated`), writing nothing.
   * Throws `InsufficientCredit` for a debit beyond the balance.
   */
  async apply(tx: Tx, change: Change): Promise<{ entry: StoreCreditEntry; repeated: boolean }> {
    const customer = await tx.em.findOne(Customer, { id: change.customerId });
    if (!customer) throw customerNotFound();
    if (change.amount > 0) {
      await tx.query(
        `insert into store_credit_balance (tenant_id, customer_id, currency, balance, created_at, updated_at)
         values (?, ?, ?, 0, ?, ?) on conflict do nothing`,
        [tx.tenantId, change.customerId, change.currency, tx.now(), tx.now()],
      );
    }
    const [row] = await tx.query<{ balance: string }>(
      `select balance from store_credit_balance where tenant_id = ? and customer_id = ? and currency = ? for update`,
      [tx.tenantId, change.customerId, change.currency],
    );
    if (change.source.type !== 'staff' && change.source.id) {
      // Read after the lock: a second grant of the same source waited for the first and sees it.
      const earlier = await tx.em.findOne(Entry, { sourceType: change.source.type, sourceId: change.source.id }, { refresh: true });
      if (earlier) return { entry: earlier, repeated: true };
    }
    const balance = Number(row?.balance ?? 0);
    if (balance + change.amount < 0) throw new InsufficientCredit(balance, -change.amount, change.currency);
    const at = tx.now();
    await tx.query(`update store_credit_balance set balance = balance + ?, updated_at = ? where tenant_id = ? and customer_id = ? and currency = ?`, [
      change.amount, at, tx.tenantId, change.customerId, change.currency,
    ]);
    const entry = {
      id: randomUUID(), tenantId: tx.tenantId, customerId: change.customerId, currency: change.currency, kind: change.kind,
      amount: change.amount, balanceAfter: balance + change.amount, reason: change.reason.trim(), sourceType: change.source.type,
      sourceId: change.source.id, paymentId: change.paymentId ?? null, orderId: change.orderId ?? null,
      createdBy: TenantContext.principalId(), createdAt: at,
    } as StoreCreditEntry;
    // Written now, not at flush: the payment record that names it follows in this transaction.
    await tx.query(
      `insert into store_credit_entry (tenant_id, id, customer_id, currency, kind, amount, balance_after, reason, source_type, source_id, payment_id, order_id, created_by, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [tx.tenantId, entry.id, entry.customerId, entry.currency, entry.kind, entry.amount, entry.balanceAfter, entry.reason, entry.sourceType,
        entry.sourceId ?? null, entry.paymentId ?? null, entry.orderId ?? null, entry.createdBy ?? null, at],
    );
    publishEntry(tx, entry);
    return { entry, repeated: false };
  }

  /** `apply` in a transaction of its own (a staff adjustment, a refund given back). */
  applyAlone(change: Change, tenantId?: string): Promise<{ entry: StoreCreditEntry; repeated: boolean }> {
    return this.db.tenant((tx) => this.apply(tx, change), tenantId);
  }
}

/** A grant's input, checked: the contract is called by code, so a mistake there is a 400 naming the field. */
function checkGrant(input: GrantInput): void {
  const details = [];
  if (!Number.isSafeInteger(input.amount) || input.amount <= 0) details.push({ path: 'amount', message: 'must be a whole number of minor units above 0' });
  if (!CURRENCY.test(input.currency)) details.push({ path: 'currency', message: 'must be an ISO 4217 code in capitals' });
  const reason = input.reason?.trim() ?? '';
  if (reason.length < 1 || reason.length > 500) details.push({ path: 'reason', message: 'must be 1 to 500 characters' });
  if (!input.source?.type || input.source.type.length > 50) details.push({ path: 'source.type', message: 'must be 1 to 50 characters' });
  if (input.source?.id != null && (String(input.source.id).length < 1 || String(input.source.id).length > 200)) {
    details.push({ path: 'source.id', message: 'must be 1 to 200 characters' });
  }
  if (details.length) throw AppError.validation('The store credit grant is not valid', details);
}
