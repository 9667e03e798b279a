import { Database, Mailer, MailTexts, Tenant, type MailDefinition } from '@qhatu/core';
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

/** The mail of each kind of change, as the store may write it per locale (`/api/v1/mail-texts`, decision 0098). */
export const noticeKey = (kind: EntryEvent['kind']) => `store-credit.${kind}`;

const VARIABLES = {
  store: "The store's name",
  first_name: "The customer's first name, empty when the store does not know it",
  amount: 'The amount that changed (S/ 12.50)',
  balance: 'The balance after the change (S/ 37.50)',
  reason: 'Why the balance changed, as staff or the store wrote it',
};

/** Each change's mail, with the placeholders a store's text of it may use. */
export const CREDIT_MAILS: MailDefinition[] = [
  { key: noticeKey('grant'), description: 'Store credit was added to the customer\'s account', variables: VARIABLES },
  { key: noticeKey('restore'), description: 'Store credit was given back (a payment with it was cancelled or refunded)', variables: VARIABLES },
  { key: noticeKey('deduct'), description: 'Staff took store credit from the customer\'s account', variables: VARIABLES },
  { key: noticeKey('spend'), description: 'The customer paid with store credit', variables: VARIABLES },
];

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
    @inject(MailTexts) private readonly texts: MailTexts,
  ) {}

  async send(event: EntryEvent): Promise<void> {
    const mail = await this.db.tenant(async (tx) => {
      const customer = await tx.em.findOne(Customer, { id: event.customer_id });
      if (!customer?.email) return null;
      const store = await tx.em.findOne(Tenant, { id: tx.tenantId });
      const storeName = store?.name ?? 'Our store';
      const changed = money(Math.abs(event.amount), event.currency);
      const balance = money(event.balance, event.currency);
      const greeting = customer.firstName ? `Hello ${customer.firstName},` : 'Hello,';
      const text = [
        greeting,
        '',
        `${HEADLINES[event.kind][0].toUpperCase()}${HEADLINES[event.kind].slice(1)}: ${event.amount > 0 ? '+' : '-'}${changed}.`,
        `Reason: ${event.reason}`,
        `Your store credit balance is now ${balance}.`,
        '',
        storeName,
      ].join('\n');
      const builtIn = { subject: `${storeName}: ${HEADLINES[event.kind]} (balance ${balance})`, text };
      const variables = { store: storeName, first_name: customer.firstName, amount: changed, balance, reason: event.reason };
      // In the customer's locale (none: the store's default); the built-in message when the store wrote no text.
      return { to: customer.email, tenantId: tx.tenantId, ...(await this.texts.compose(tx, noticeKey(event.kind), customer.locale, variables, builtIn)) };
    });
    if (!mail) return;
    await this.mailer.send({ tenantId: mail.tenantId, to: mail.to, subject: mail.subject, text: mail.text, ...(mail.html === undefined ? {} : { html: mail.html }) });
  }
}
