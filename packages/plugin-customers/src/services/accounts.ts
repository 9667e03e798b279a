import { LockMode } from '@mikro-orm/core';
import { AccessToken, AccessTokens, AppError, Database, localeNotListed, TenantContext, type LocaleChoice, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Customer } from '../entities/customer.js';
import type { CustomerActivate, CustomerLogin, CustomerRegister } from '../schemas/auth.js';
import { AccountLinks, addCredential } from './account-links.js';
import { Customers, customerDisabled, emailTaken, flushCustomer, listedLocale } from './customers.js';
import { Passwords } from './passwords.js';
import { CUSTOMER_SETTINGS, type CustomerSettings } from './settings.js';
import { StoreSettings } from './store-settings.js';

export interface CustomerSession {
  token: string;
  expiresAt: Date;
  customer: Customer;
}

/** A session at once, or a registration to be finished from the e-mail sent to `email`. */
export type Registration = { session: CustomerSession; pending?: undefined } | { session?: undefined; pending: { email: string } };

const DAY_MS = 24 * 60 * 60 * 1000;

// One answer for an unknown e-mail, a customer without a password and a wrong password.
const invalidCredentials = () => AppError.unauthenticated('The e-mail or password is not correct');
const passwordRequired = () =>
  AppError.validation('A password is required to register in this store', [{ path: 'body.password', message: 'is required' }]);

/**
 * Customer accounts: register, activate, log in, log out. Passwords are hashed before any transaction is
 * opened, so that a quarter of a second of scrypt never holds a database connection.
 */
@injectable()
export class CustomerAccounts {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(AccessTokens) private readonly tokens: AccessTokens,
    @inject(Passwords) private readonly passwords: Passwords,
    @inject(Customers) private readonly customers: Customers,
    @inject(CUSTOMER_SETTINGS) private readonly settings: CustomerSettings,
    @inject(StoreSettings) private readonly storeSettings: StoreSettings,
    @inject(AccountLinks) private readonly links: AccountLinks,
  ) {}

  /**
   * A registration, as the store's setting says (see the README):
   * - `verify`: nothing is created or changed here; the address is e-mailed a link (or a note),
   *   and every e-mail gets the same answer, whether the store knows it or not.
   * - `instant`: a new e-mail gets its account and a session at once; the e-mail of a customer
   *   the store created gets the link; one with an account is a 409.
   * - `claim`: as `instant`, but a store-created customer gets the password at once.
   */
  async register(input: CustomerRegister, requested?: LocaleChoice): Promise<Registration> {
    // The mail in the locale asked for, else the request's; the customer keeps it unless it is the store's default.
    // A locale the store does not list is refused before anything is sent (the caller's token carries the store's locales).
    const store = TenantContext.principal()?.locales;
    if (input.locale && store && !store.locales.includes(input.locale)) throw localeNotListed(input.locale, store, 'body.locale');
    const mailLocale = input.locale ?? requested?.locale ?? null;
    const kept = input.locale ?? (requested?.translated ? requested.locale : null);
    const signUp = { ...input, locale: kept };
    const settings = await this.storeSettings.get();
    if (settings.registration === 'verify') {
      await this.links.send(signUp, settings, mailLocale);
      return { pending: { email: input.email } };
    }
    if (input.password === undefined) throw passwordRequired();
    const passwordHash = await this.passwords.hash(input.password);
    const session = await this.db.tenant(async (tx) => {
      const { em } = tx;
      const existing = await em.findOne(Customer, { email: input.email }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!existing) {
        const customer = await this.customers.add(tx, { email: input.email, first_name: input.first_name, last_name: input.last_name, locale: kept }, { hasAccount: true });
        addCredential(tx, customer, passwordHash);
        await flushCustomer(em);
        return this.openSession(tx, customer);
      }
      if (existing.hasAccount || existing.status !== 'active') throw emailTaken();
      // Only the holder of the mailbox may take a record the store made, unless the store chose otherwise.
      if (settings.registration === 'instant') return null;
      // The store's record is authoritative: the shopper's names only fill in blanks.
      existing.firstName ||= input.first_name ?? '';
      existing.lastName ||= input.last_name ?? '';
      existing.locale ??= await listedLocale(tx, kept);
      addCredential(tx, existing, passwordHash);
      return this.openSession(tx, await this.customers.saveUpdate(tx, existing));
    });
    if (session) return { session };
    await this.links.send(signUp, settings, mailLocale);
    return { pending: { email: input.email } };
  }

  /** Spends an account link: its customer gets `password` and a session. */
  async activate(input: CustomerActivate): Promise<CustomerSession> {
    const passwordHash = await this.passwords.hash(input.password);
    return this.db.tenant(async (tx) => this.openSession(tx, await this.links.redeem(tx, input.token, passwordHash)));
  }

  /** 401 for every wrong pair (with the same scrypt work); 403 CUSTOMER_DISABLED only with the right password. */
  async login(input: CustomerLogin): Promise<CustomerSession> {
    const found = await this.db.tenant(async ({ em, tenantId }) => {
      const rows = await em.execute<Array<{ id: string; password_hash: string | null }>>(
        `select c.id, cr.password_hash
           from customers_customer c
           left join customers_credential cr on cr.tenant_id = c.tenant_id and cr.customer_id = c.id
          where c.tenant_id = ? and c.email = ?`,
        [tenantId, input.email],
      );
      return rows[0];
    });
    const matches = await this.passwords.verify(input.password, found?.password_hash ?? null);
    if (!found || !matches) throw invalidCredentials();
    return this.db.tenant(async (tx) => {
      const customer = await tx.em.findOne(Customer, { id: found.id });
      if (!customer) throw invalidCredentials();
      if (customer.status !== 'active') throw customerDisabled();
      return this.openSession(tx, customer);
    });
  }

  /** Revokes the token the request was made with. */
  async logout(): Promise<void> {
    const principal = TenantContext.principal();
    if (principal?.kind !== 'customer' || !principal.tokenId) throw AppError.forbidden('Only a customer token can be logged out');
    await this.db.tenant(async (tx) => {
      await tx.em.nativeUpdate(AccessToken, { id: principal.tokenId!, revokedAt: null }, { revokedAt: tx.now() });
      tx.afterCommit(() => this.tokens.forgetTenant(tx.tenantId));
    });
  }

  private async openSession(tx: Tx, customer: Customer): Promise<CustomerSession> {
    const expiresAt = new Date(tx.now().getTime() + this.settings.tokenTtlDays * DAY_MS);
    const { token } = await this.tokens.issue(tx, { tenantId: tx.tenantId, kind: 'customer', subjectId: customer.id, expiresAt });
    await tx.em.flush();
    return { token, expiresAt, customer };
  }
}
