import { AppError, Database, keyset, pgDate, TenantContext, type KeysetColumn, type Page, type PageRequest, type TxReader } from '@qhatu/core';
import { Customer } from '@qhatu/plugin-customers';
import { inject, injectable } from 'tsyringe';
import type { EntryKind, StoreCreditEntry } from '../entities/entry.js';
import { customerNotFound, InsufficientCredit, insufficient, StoreCreditLedger } from './ledger.js';

/** A customer's balance in one currency. */
export interface BalanceView {
  customerId: string;
  currency: string;
  balance: number;
  updatedAt: Date;
}

export interface EntryFilter {
  currency?: string;
  kind?: EntryKind;
}

/** A staff member's change: credit given (`grant`) or taken back (`deduct`), with the reason the customer is shown. */
export interface AdjustmentInput {
  kind: 'grant' | 'deduct';
  currency: string;
  amount: number;
  reason: string;
}

const COLUMNS = `id, tenant_id, customer_id, currency, kind, amount, balance_after, reason, source_type, source_id, payment_id, order_id, created_by, created_at`;
const SORTS: Record<string, KeysetColumn> = { created_at: { sql: 'created_at', type: 'timestamptz' } };

function toEntry(r: Record<string, unknown>): StoreCreditEntry {
  return {
    id: r.id as string,
    tenantId: r.tenant_id as string,
    customerId: r.customer_id as string,
    currency: r.currency as string,
    kind: r.kind as EntryKind,
    amount: Number(r.amount),
    balanceAfter: Number(r.balance_after),
    reason: r.reason as string,
    sourceType: r.source_type as string,
    sourceId: (r.source_id as string | null) ?? null,
    paymentId: (r.payment_id as string | null) ?? null,
    orderId: (r.order_id as string | null) ?? null,
    createdBy: (r.created_by as string | null) ?? null,
    createdAt: pgDate(r.created_at),
  } as StoreCreditEntry;
}

/** Balances and entries as the staff and the customer read them, and the staff's adjustments. */
@injectable()
export class StoreCreditAccounts {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(StoreCreditLedger) private readonly ledger: StoreCreditLedger,
  ) {}

  /** Grants or deducts as the calling staff member; a deduction beyond the balance is 422 INSUFFICIENT_STORE_CREDIT and writes nothing. */
  async adjust(customerId: string, input: AdjustmentInput): Promise<{ entry: StoreCreditEntry; balances: BalanceView[] }> {
    return this.db.tenant(async (tx) => {
      try {
        const { entry } = await this.ledger.apply(tx, {
          customerId, currency: input.currency, kind: input.kind, amount: input.kind === 'grant' ? input.amount : -input.amount,
          reason: input.reason, source: { type: 'staff', id: TenantContext.principalId() },
        });
        return { entry, balances: await balancesOf(tx, customerId) };
      } catch (error) {
        if (error instanceof InsufficientCredit) throw insufficient(error);
        if (error instanceof AppError && error.code === 'CUSTOMER_NOT_FOUND') throw customerNotFound('params.customer_id');
        throw error;
      }
    });
  }

  /** The customer's balances, one per currency credit was ever given in; 404 CUSTOMER_NOT_FOUND for anyone not of this store. */
  async balances(customerId: string): Promise<BalanceView[]> {
    return this.db.tenant(async (tx) => {
      if (!(await tx.em.findOne(Customer, { id: customerId }))) throw customerNotFound('params.customer_id');
      return balancesOf(tx, customerId);
    });
  }

  /** The customer's entries, newest first unless sorted otherwise (keyset pages). */
  async entries(customerId: string, page: PageRequest, filter: EntryFilter): Promise<Page<StoreCreditEntry>> {
    return this.db.tenant(async (tx) => {
      if (!(await tx.em.findOne(Customer, { id: customerId }))) throw customerNotFound('params.customer_id');
      return readPage(tx, customerId, page, filter);
    });
  }
}

async function balancesOf(sql: TxReader, customerId: string): Promise<BalanceView[]> {
  const rows = await sql.query<{ currency: string; balance: string; updated_at: unknown }>(
    `select currency, balance, updated_at from store_credit_balance where tenant_id = ? and customer_id = ? order by currency`,
    [sql.tenantId, customerId],
  );
  return rows.map((r) => ({ customerId, currency: r.currency, balance: Number(r.balance), updatedAt: pgDate(r.updated_at) }));
}

async function readPage(sql: TxReader, customerId: string, page: PageRequest, filter: EntryFilter): Promise<Page<StoreCreditEntry>> {
  const conditions = ['tenant_id = ?', 'customer_id = ?'];
  const params: unknown[] = [sql.tenantId, customerId];
  if (filter.currency) {
    conditions.push('currency = ?');
    params.push(filter.currency);
  }
  if (filter.kind) {
    conditions.push('kind = ?');
    params.push(filter.kind);
  }
  const resume = keyset(page, SORTS);
  if (resume.where) {
    conditions.push(resume.where);
    params.push(...resume.params);
  }
  const rows = await sql.query<Record<string, unknown>>(`select ${COLUMNS} from store_credit_entry where ${conditions.join(' and ')} ${resume.tail}`, params);
  return resume.finish(rows.map(toEntry), (e) => e.createdAt.toISOString());
}
