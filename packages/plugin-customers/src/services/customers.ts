import { randomUUID } from 'node:crypto';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AccessTokens, AppError, CustomFields, Database, localeNotListed, normalizeLocale, storeLocales, TenantContext, type CustomFieldFilter, type Page, type PageRequest, type StoreLocales, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Customer, type CustomerStatus } from '../entities/customer.js';
import { customerMachine } from '../machines/customer.js';
import type { CustomerCreate, CustomerPatch, CustomerProfilePatch } from '../schemas/customer.js';
import { readCustomerPage, type CustomerJson } from './customer-reads.js';

export const CUSTOMER_EVENTS = ['customers.customer.created', 'customers.customer.updated'] as const;

export interface CustomerFilter {
  status?: CustomerStatus;
  /** Every word must be found in the e-mail, a name or the phone. */
  q?: string;
  /** Equal to these values of indexed custom fields. */
  customFields?: CustomFieldFilter[];
}

export const customerNotFound = () => AppError.notFound('Customer', 'CUSTOMER_NOT_FOUND');
export const customerDisabled = () => new AppError(403, 'CUSTOMER_DISABLED', 'This customer account is disabled');
export const emailTaken = () =>
  AppError.conflict('A customer with this e-mail already exists in this store', 'CUSTOMER_EMAIL_TAKEN', [
    { path: 'body.email', message: 'is taken' },
  ]);

/**
 * Customers: the only place that writes them. Other plugins (orders, checkout) use `get` and
 * `findByEmail`; inside their own `Database.tenant` transaction these join it.
 */
@injectable()
export class Customers {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(AccessTokens) private readonly tokens: AccessTokens,
    @inject(CustomFields) private readonly fields: CustomFields,
  ) {}

  async create(input: CustomerCreate): Promise<Customer> {
    return this.db.tenant(async (tx) => {
      const customer = await this.add(tx, input);
      await flushCustomer(tx.em);
      return customer;
    });
  }

  /** The customer with this id, or 404 CUSTOMER_NOT_FOUND. */
  async get(id: string): Promise<Customer> {
    return this.db.tenant(async ({ em }) => {
      const customer = await em.findOne(Customer, { id });
      if (!customer) throw customerNotFound();
      return customer;
    });
  }

  /** The customer with this e-mail (compared without case), or null; a caller's statement reads it with `customerByEmailSql`. */
  async findByEmail(email: string): Promise<Customer | null> {
    return this.db.tenant(({ em }) => em.findOne(Customer, { email: email.trim().toLowerCase() }));
  }

  /** A page of customers as the list answers it: JSON made by PostgreSQL in one round trip (`readCustomerPage`). */
  async list(page: PageRequest, filter: CustomerFilter): Promise<{ items: CustomerJson[]; pagination: Page<unknown>['pagination'] }> {
    // Custom-field filters on the fields' stored columns, so the planner can use their indexes.
    const conditions = (filter.customFields ?? []).map((f) => this.fields.condition(f));
    return this.db.readOne((sql) => readCustomerPage(sql, page, { ...filter, conditions }));
  }

  async update(id: string, patch: CustomerPatch): Promise<Customer> {
    const customFields = patch.custom_fields === undefined ? undefined : this.fields.changes('customer', patch.custom_fields);
    return this.db.tenant(async (tx) => {
      const locale = await listedLocale(tx, patch.locale);
      const customer = await lock(tx.em, id);
      if (patch.email !== undefined && patch.email !== customer.email) {
        if (await tx.em.count(Customer, { email: patch.email })) throw emailTaken();
        customer.email = patch.email;
      }
      assignProfile(customer, { ...patch, locale });
      if (customFields) customer.customFields = { ...customer.customFields, ...customFields };
      if (patch.tags !== undefined) customer.tags = patch.tags;
      if (patch.status !== undefined && patch.status !== customer.status) {
        await customerMachine.apply(tx, customer, patch.status === 'disabled' ? 'disable' : 'enable');
        // Revoked in this transaction; this process stops honouring them at once, others within 30 s.
        if (customer.status === 'disabled') tx.afterCommit(() => this.tokens.forgetTenant(tx.tenantId));
      }
      return this.saveUpdate(tx, customer);
    });
  }

  /** The signed-in customer's own record: 403 CUSTOMER_DISABLED once disabled. */
  async self(id: string): Promise<Customer> {
    const customer = await this.get(id);
    if (customer.status !== 'active') throw customerDisabled();
    return customer;
  }

  /** What a signed-in customer may change of their own record (names, phone, marketing consent, public custom fields). */
  async updateProfile(id: string, patch: CustomerProfilePatch): Promise<Customer> {
    const customFields = patch.custom_fields === undefined ? undefined : this.fields.changes('customer', patch.custom_fields, { audience: 'storefront' });
    return this.db.tenant(async (tx) => {
      const locale = await listedLocale(tx, patch.locale);
      const customer = await lock(tx.em, id);
      if (customer.status !== 'active') throw customerDisabled();
      assignProfile(customer, { ...patch, locale });
      if (customFields) customer.customFields = { ...customer.customFields, ...customFields };
      return this.saveUpdate(tx, customer);
    });
  }

  /** Adds a customer in `tx` (flushed by the caller); 409 CUSTOMER_EMAIL_TAKEN when the e-mail is used. */
  async add(tx: Tx, input: CustomerCreate, { hasAccount = false } = {}): Promise<Customer> {
    const customFields = this.fields.create('customer', input.custom_fields);
    const locale = await listedLocale(tx, input.locale);
    if (await tx.em.count(Customer, { email: input.email })) throw emailTaken();
    const at = tx.now();
    const customer = tx.em.create(Customer, {
      id: randomUUID(),
      tenantId: tx.tenantId,
      email: input.email,
      firstName: input.first_name ?? '',
      lastName: input.last_name ?? '',
      phone: input.phone ?? null,
      acceptsMarketing: input.accepts_marketing ?? false,
      locale: locale ?? null,
      tags: input.tags ?? [],
      status: 'active',
      hasAccount,
      customFields,
      createdAt: at,
      updatedAt: at,
    });
    tx.publish('customers.customer.created', customerEvent(customer));
    return customer;
  }

  /** Records a change made in `tx` to `customer`: its time, the event, the flush. */
  async saveUpdate(tx: Tx, customer: Customer): Promise<Customer> {
    customer.updatedAt = tx.now();
    tx.publish('customers.customer.updated', customerEvent(customer));
    await flushCustomer(tx.em);
    return customer;
  }
}

async function lock(em: EntityManager, id: string): Promise<Customer> {
  const customer = await em.findOne(Customer, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!customer) throw customerNotFound();
  return customer;
}

/** Flushes, turning a lost race for an e-mail (the unique index) into the same 409 as the check. */
export async function flushCustomer(em: EntityManager): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw emailTaken();
    throw error;
  }
}

/**
 * `locale` as stored: normalized, and one of the store's locales (422 LOCALE_NOT_LISTED at
 * `path`); null stays null. The store's locales come with the caller's token (read in `tx` for a
 * caller without them).
 */
export async function listedLocale(tx: Tx, locale: string | null | undefined, path = 'body.locale'): Promise<string | null | undefined> {
  if (locale === null || locale === undefined) return locale;
  const wanted = normalizeLocale(locale);
  let store: StoreLocales | undefined = TenantContext.principal()?.locales;
  if (!store) {
    const [row] = await tx.query<{ default_locale: string; locales: string[] }>('select default_locale, locales from core_tenant where id = ?', [tx.tenantId]);
    store = storeLocales(row.default_locale, row.locales);
  }
  if (!store.locales.includes(wanted)) throw localeNotListed(wanted, store, path);
  return wanted;
}

/** `locale` when the store still lists it (as the caller's token says), else null: a locale kept from before is never refused later. */
export function stillListed(locale: string | null | undefined): string | null {
  const store = TenantContext.principal()?.locales;
  return locale && (!store || store.locales.includes(locale)) ? locale : null;
}

function assignProfile(customer: Customer, patch: CustomerProfilePatch): void {
  if (patch.first_name !== undefined) customer.firstName = patch.first_name ?? '';
  if (patch.last_name !== undefined) customer.lastName = patch.last_name ?? '';
  if (patch.phone !== undefined) customer.phone = patch.phone;
  if (patch.accepts_marketing !== undefined) customer.acceptsMarketing = patch.accepts_marketing;
  if (patch.locale !== undefined) customer.locale = patch.locale;
}

export function customerEvent(c: Customer) {
  return {
    id: c.id,
    email: c.email,
    first_name: c.firstName || null,
    last_name: c.lastName || null,
    phone: c.phone ?? null,
    accepts_marketing: c.acceptsMarketing,
    locale: c.locale ?? null,
    tags: c.tags,
    status: c.status,
    has_account: Boolean(c.hasAccount),
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

/**
 * The customer of an e-mail as one JSON column of a caller's statement (`{ id, firstName, lastName }`,
 * or null), read in a round trip the caller makes anyway: `tenantSql` names the tenant, `emailSql`
 * the e-mail, lower case (as e-mails are stored).
 */
export function customerByEmailSql(tenantSql: string, emailSql: string): string {
  return `(select json_build_object('id', u.id, 'firstName', u.first_name, 'lastName', u.last_name)
             from customers_customer u where u.tenant_id = ${tenantSql} and u.email = ${emailSql} limit 1)`;
}
