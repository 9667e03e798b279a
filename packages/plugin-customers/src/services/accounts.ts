import { LockMode } from '@mikro-orm/core';
import { AccessToken, AccessTokens, AppError, Database, TenantContext, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { CustomerCredential } from '../entities/credential.js';
import { Customer } from '../entities/customer.js';
import type { CustomerLogin, CustomerRegister } from '../schemas/auth.js';
import { Customers, customerDisabled, emailTaken, flushCustomer } from './customers.js';
import { Passwords } from './passwords.js';
import { CUSTOMER_SETTINGS, type CustomerSettings } from './settings.js';

export interface CustomerSession {
  token: string;
  expiresAt: Date;
  customer: Customer;
}

const DAY_MS = 24 * 60 * 60 * 1000;

// One answer for an unknown e-mail, a customer without a password and a wrong password.
const invalidCredentials = () => AppError.unauthenticated('The e-mail or password is not correct');

/**
 * Customer accounts: register, log in, log out. Passwords are hashed before any transaction is
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
  ) {}

  /**
   * A new customer with a password, or, when the store created this e-mail's customer without
   * one (and the setting allows it), that customer gets the password: the shopper claims it.
   */
  async register(input: CustomerRegister): Promise<CustomerSession> {
    const passwordHash = await this.passwords.hash(input.password);
    return this.db.tenant(async (tx) => {
      const { em } = tx;
      const existing = await em.findOne(Customer, { email: input.email }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      let customer: Customer;
      if (existing) {
        if (!this.settings.registerClaims || existing.hasAccount || existing.status !== 'active') throw emailTaken();
        customer = existing;
        // The store's record is authoritative: the shopper's names only fill in blanks.
        customer.firstName ||= input.first_name ?? '';
        customer.lastName ||= input.last_name ?? '';
      } else {
        customer = await this.customers.add(tx, { email: input.email, first_name: input.first_name, last_name: input.last_name }, { hasAccount: true });
      }
      const at = tx.now();
      em.create(CustomerCredential, { tenantId: tx.tenantId, customerId: customer.id, passwordHash, createdAt: at, updatedAt: at });
      customer.hasAccount = true;
      if (existing) return this.openSession(tx, await this.customers.saveUpdate(tx, customer));
      await flushCustomer(em);
      return this.openSession(tx, customer);
    });
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
