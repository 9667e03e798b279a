import { Database, Mailer, Tenant } from '@qhatu/core';
import { Customer } from '@qhatu/plugin-customers';
import { inject, injectable } from 'tsyringe';

/** The job that e-mails the customer each change of their balance. */
export const CREDIT_NOTICE_JOB = 'store-credit.notice';

/** A ledger entry's event, as the job receives it. */
export interface EntryEvent {
  id: string;
  customer_id: string;
  currency: string;
  kind: 'grant' | 'deduct' | 'spend' | 'restore';
  amount: number;
  balance: number;
  reason: string;
}

const HEADLINES: Record<EntryEvent['kind'], string> = {
  grant: 'store credit was added to your account',
  restore: 'store credit was given back to your account',
  deduct: 'store credit was taken from your account',
  spend: 'you paid with store credit',
};

/** Amount in minor units as the customer reads it (`S/ 12.50`, `$12.50`), in the currency's own decimals. */
export function money(amount: number, currency: string): string {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  return new Intl.NumberFormat('en', { style: 'currency', currency }).format(amount / 10 ** digits);
}

/**
 * E-mails to the customer about their balance: one per entry, sent by a job the outbox relay queues
 * once the entry committed (never for a change that rolled back).
 */
@injectable()
export class CreditNotices {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Mailer) private readonly mailer: Mailer,
  ) {}

  async send(event: EntryEvent): Promise<void> {
    const found = await this.db.tenant(async (tx) => ({
      customer: await tx.em.findOne(Customer, { id: event.customer_id }),
      store: await tx.em.findOne(Tenant, { id: tx.tenantId }),
      tenantId: tx.tenantId,
    }));
    if (!found.customer?.email) return;
    const storeName = found.store?.name ?? 'Our store';
    const changed = money(Math.abs(event.amount), event.currency);
    const balance = money(event.balance, event.currency);
    const greeting = found.customer.firstName ? `Hello ${found.customer.firstName},` : 'Hello,';
    const text = [
      greeting,
      '',
      `${HEADLINES[event.kind][0].toUpperCase()}${HEADLINES[event.kind].slice(1)}: ${event.amount > 0 ? '+' : '-'}${changed}.`,
      `Reason: ${event.reason}`,
      `Your store credit balance is now ${balance}.`,
      '',
      storeName,
    ].join('\n');
    await this.mailer.send({ tenantId: found.tenantId, to: found.customer.email, subject: `${storeName}: ${HEADLINES[event.kind]} (balance ${balance})`, text });
  }
}
