import { randomBytes, randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AppError, Database, hashToken, LOGGER, Mailer, MailTexts, Tenant, type ComposedMail, type Tx } from '@qhatu/core';
import type { Logger } from 'pino';
import { inject, injectable } from 'tsyringe';
import { AccountLink } from '../entities/account-link.js';
import { CustomerCredential } from '../entities/credential.js';
import { Customer } from '../entities/customer.js';
import { ACCOUNT_MAIL_KEYS, accountMail, accountMailVariables, type AccountMailKind } from './account-mail.js';
import { customerDisabled, Customers, flushCustomer, stillListed } from './customers.js';
import { KEEP_SPENT_MS } from './spent-links.js';
import type { EffectiveSettings } from './store-settings.js';

const HOUR_MS = 60 * 60 * 1000;
/** Registration e-mails one address receives in an hour, at most: nobody floods a mailbox through a store. */
export const MAILS_PER_HOUR = 5;

export interface SignUp {
  email: string;
  first_name?: string | null;
  last_name?: string | null;
  /** The locale the customer it creates keeps (null: the store's default). */
  locale?: string | null;
}

const linkNotFound = () => AppError.notFound('Account link', 'ACCOUNT_LINK_NOT_FOUND');
const linkUsed = (message = 'This link has already been used; sign in with the password chosen then') =>
  AppError.conflict(message, 'ACCOUNT_LINK_USED');
const linkExpired = (why = 'This link has expired') =>
  new AppError(410, 'ACCOUNT_LINK_EXPIRED', `${why}; register again to get a new one`);

/** Gives `customer` the password hashed as `passwordHash` (in `tx`, flushed by the caller). */
export function addCredential(tx: Tx, customer: Customer, passwordHash: string): void {
  const at = tx.now();
  tx.em.create(CustomerCredential, { tenantId: tx.tenantId, customerId: customer.id, passwordHash, createdAt: at, updatedAt: at });
  customer.hasAccount = true;
}

/**
 * Sign-up through the shopper's mailbox: a registration e-mails the address a single-use link
 * (or, when there is nothing to finish, a note saying why), and the link with a password creates
 * the account or attaches the password to the customer the store created. Only the holder of the
 * mailbox can finish, and the caller of register learns nothing about the address.
 */
@injectable()
export class AccountLinks {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Mailer) private readonly mailer: Mailer,
    @inject(Customers) private readonly customers: Customers,
    @inject(MailTexts) private readonly texts: MailTexts,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * E-mails `signUp.email` what its registration leads to; 502 MAIL_DELIVERY_FAILED when it cannot.
   * Past MAILS_PER_HOUR for the address nothing more is sent, and the answer is the same. The
   * e-mail is the store's text in `mailLocale` (the locale the registration chose), else the built-in one.
   */
  async send(signUp: SignUp, settings: EffectiveSettings, mailLocale: string | null = null): Promise<void> {
    const token = `qhl_${randomBytes(32).toString('base64url')}`;
    const url = new URL(settings.accountUrl);
    url.searchParams.set('token', token);
    const link = url.toString();
    const plan = await this.db.tenant((tx) => this.plan(tx, signUp, settings, token, link, mailLocale));
    if (!plan) return;
    try {
      // After commit: a slow mail server never holds a database connection.
      await this.mailer.send({ tenantId: plan.tenantId, to: signUp.email, subject: plan.mail.subject, text: plan.mail.text, ...(plan.mail.html === undefined ? {} : { html: plan.mail.html }) });
    } catch (error) {
      await this.db.tenant(async ({ em }) => {
        if (plan.linkId) await em.nativeDelete(AccountLink, { id: plan.linkId });
        await em.execute(`delete from customers_registration_mail where tenant_id = ? and id = ?`, [plan.tenantId, plan.mailId]);
      });
      // The mail server's own words stay in the log: this answer goes to anyone with a storefront key.
      this.logger.error({ err: error, tenantId: plan.tenantId }, 'a registration e-mail could not be sent');
      throw new AppError(502, 'MAIL_DELIVERY_FAILED', 'The e-mail could not be sent; nothing was changed, try again later');
    }
  }

  /** What to send (and the link row, committed before the e-mail goes), or null past the hourly cap. */
  private async plan(tx: Tx, signUp: SignUp, settings: EffectiveSettings, token: string, link: string, mailLocale: string | null) {
    const { em } = tx;
    const now = tx.now();
    // Links of this address spent over a week ago go; open ones stay until used or expired.
    const spent = new Date(now.getTime() - KEEP_SPENT_MS);
    await em.nativeDelete(AccountLink, { email: signUp.email, $or: [{ usedAt: { $lt: spent } }, { expiresAt: { $lt: spent } }] });
    const [{ sent }] = await em.execute<Array<{ sent: number }>>(
      `select count(*)::int as sent from customers_registration_mail where tenant_id = ? and email = ? and sent_at > ?`,
      [tx.tenantId, signUp.email, new Date(now.getTime() - HOUR_MS)],
    );
    if (sent >= MAILS_PER_HOUR) return null;
    const mailId = randomUUID();
    await em.execute(`insert into customers_registration_mail (tenant_id, id, email, sent_at) values (?, ?, ?, ?)`, [tx.tenantId, mailId, signUp.email, now]);

    const existing = await em.findOne(Customer, { email: signUp.email });
    const kind: AccountMailKind = !existing || (existing.status === 'active' && !existing.hasAccount) ? 'link' : existing.status === 'active' ? 'has-account' : 'disabled';
    const expiresAt = new Date(now.getTime() + settings.linkTtlHours * HOUR_MS);
    const linkId = kind === 'link' ? randomUUID() : undefined;
    if (linkId) {
      em.create(AccountLink, {
        id: linkId,
        tenantId: tx.tenantId,
        tokenHash: hashToken(token),
        email: signUp.email,
        customerId: existing?.id ?? null,
        firstName: signUp.first_name ?? '',
        lastName: signUp.last_name ?? '',
        locale: signUp.locale ?? null,
        expiresAt,
        usedAt: null,
        createdAt: now,
      });
    }
    const tenant = await em.findOneOrFail(Tenant, { id: tx.tenantId });
    const shown = { kind, store: tenant.name, link: kind === 'link' ? link : undefined, expiresAt };
    const mail: ComposedMail = await this.texts.compose(tx, ACCOUNT_MAIL_KEYS[kind], mailLocale, accountMailVariables({ ...shown, email: signUp.email }), accountMail(shown));
    return { linkId, mailId, mail, tenantId: tx.tenantId };
  }

  /**
   * Spends the link of `token` in `tx` and gives its customer the password (creating the
   * customer for a new address); every other open link of the address is spent with it.
   */
  async redeem(tx: Tx, token: string, passwordHash: string): Promise<Customer> {
    const { em } = tx;
    const link = await em.findOne(AccountLink, { tokenHash: hashToken(token) }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!link) throw linkNotFound();
    if (link.usedAt) throw linkUsed();
    if (link.expiresAt.getTime() <= tx.now().getTime()) throw linkExpired();
    let customer = await em.findOne(Customer, link.customerId ? { id: link.customerId } : { email: link.email }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    // The store changed the customer's e-mail since: the link went to an address that is no longer theirs.
    if (customer && customer.email !== link.email) throw linkExpired('This link is no longer valid: the e-mail address changed');
    if (customer?.hasAccount) throw linkUsed('This e-mail address already has an account; sign in with its password');
    if (customer && customer.status !== 'active') throw customerDisabled();
    const now = tx.now();
    await em.nativeUpdate(AccountLink, { email: link.email, usedAt: null }, { usedAt: now });
    if (customer) {
      // The store's record is authoritative: the shopper's names only fill in blanks.
      customer.firstName ||= link.firstName;
      customer.lastName ||= link.lastName;
      customer.locale ??= stillListed(link.locale);
      addCredential(tx, customer, passwordHash);
      return this.customers.saveUpdate(tx, customer);
    }
    customer = await this.customers.add(tx, { email: link.email, first_name: link.firstName, last_name: link.lastName, locale: stillListed(link.locale) }, { hasAccount: true });
    addCredential(tx, customer, passwordHash);
    await flushCustomer(em);
    return customer;
  }
}
