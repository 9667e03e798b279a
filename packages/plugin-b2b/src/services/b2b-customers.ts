import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import { AppError, Database, filtersOf, keyset, paginate, type Page, type Tx } from '@qhatu/core';
import { Customer } from '@qhatu/plugin-customers';
import { inject, injectable } from 'tsyringe';
import { B2BCustomer } from '../entities/b2b-customer.js';
import { Buyer } from '../entities/buyer.js';
import { PriceList } from '../entities/price-list.js';
import { actionTo, b2bCustomerMachine } from '../machines/b2b-customer.js';
import type { B2BCustomerCreate, B2BCustomerListQuery, B2BCustomerPatch } from '../schemas/customer.js';
import { publishCustomer } from './events.js';

export const b2bCustomerNotFound = () => AppError.notFound('B2B customer', 'B2B_CUSTOMER_NOT_FOUND');

const rucTaken = (ruc: string) =>
  new AppError(409, 'RUC_TAKEN', `A B2B customer with RUC ${ruc} already exists in this store`, [{ path: 'body.ruc', message: 'is taken' }]);

/** A buyer with its account's name and e-mail. */
export interface BuyerView {
  buyer: Buyer;
  customer: Pick<Customer, 'email' | 'firstName' | 'lastName'>;
}

/** B2B customers and their buyers: the only writer of both. */
@injectable()
export class B2BCustomers {
  constructor(@inject(Database) private readonly db: Database) {}

  async create(input: B2BCustomerCreate): Promise<B2BCustomer> {
    return this.db.tenant(async (tx) => {
      if (input.price_list_id) await assertPriceList(tx, input.price_list_id);
      if (await tx.em.count(B2BCustomer, { ruc: input.ruc })) throw rucTaken(input.ruc);
      const customer = tx.em.create(B2BCustomer, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        companyName: input.company_name,
        ruc: input.ruc,
        email: input.email,
        phone: input.phone ?? null,
        creditLimit: input.credit_limit,
        priceListId: input.price_list_id ?? null,
        status: input.status,
        createdAt: tx.now(),
        updatedAt: tx.now(),
      });
      publishCustomer(tx, 'b2b.customer.created', customer);
      await flushUnique(tx, input.ruc);
      return customer;
    });
  }

  async get(id: string): Promise<B2BCustomer> {
    return this.db.tenant(async ({ em }) => {
      const customer = await em.findOne(B2BCustomer, { id });
      if (!customer) throw b2bCustomerNotFound();
      return customer;
    });
  }

  async list(query: B2BCustomerListQuery): Promise<Page<B2BCustomer>> {
    return this.db.tenant(({ em }) => paginate(em, B2BCustomer, filtersOf(query), query));
  }

  /** Changes the fields sent; a status change is a move (409 INVALID_STATE_TRANSITION when not allowed). */
  async update(id: string, patch: B2BCustomerPatch): Promise<B2BCustomer> {
    return this.db.tenant(async (tx) => {
      const customer = await lockCustomer(tx, id);
      const changed: string[] = [];
      const set = <K extends keyof B2BCustomer>(key: K, value: B2BCustomer[K], name: string) => {
        if (customer[key] === value) return;
        customer[key] = value;
        changed.push(name);
      };
      if (patch.price_list_id) await assertPriceList(tx, patch.price_list_id);
      if (patch.ruc !== undefined && patch.ruc !== customer.ruc && (await tx.em.count(B2BCustomer, { ruc: patch.ruc, id: { $ne: id } }))) throw rucTaken(patch.ruc);
      if (patch.company_name !== undefined) set('companyName', patch.company_name, 'company_name');
      if (patch.ruc !== undefined) set('ruc', patch.ruc, 'ruc');
      if (patch.email !== undefined) set('email', patch.email, 'email');
      if (patch.phone !== undefined) set('phone', patch.phone ?? null, 'phone');
      if (patch.credit_limit !== undefined) set('creditLimit', patch.credit_limit, 'credit_limit');
      if (patch.price_list_id !== undefined) set('priceListId', patch.price_list_id ?? null, 'price_list_id');
      if (patch.status !== undefined && patch.status !== customer.status) {
        await b2bCustomerMachine.apply(tx, customer, actionTo(customer.status, patch.status));
        changed.push('status');
      }
      if (changed.length === 0) return customer;
      customer.updatedAt = tx.now();
      publishCustomer(tx, 'b2b.customer.updated', customer, changed);
      if (changed.includes('ruc')) await flushUnique(tx, customer.ruc);
      return customer;
    });
  }

  /** Links a customer account of the store as a buyer of the company (201); it buys for one company only. */
  async addBuyer(id: string, customerId: string): Promise<BuyerView> {
    return this.db.tenant(async (tx) => {
      await lockCustomer(tx, id);
      const account = await tx.em.findOne(Customer, { id: customerId });
      if (!account) {
        throw AppError.unprocessable('CUSTOMER_NOT_FOUND', `Customer ${customerId} does not exist`, [{ path: 'body.customer_id', message: 'is not a customer of this store' }]);
      }
      const existing = await tx.em.findOne(Buyer, { customerId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (existing) {
        const same = existing.b2bCustomerId === id;
        throw new AppError(409, 'BUYER_ALREADY_LINKED', same ? 'This customer already buys for this company' : 'This customer already buys for another company; remove it there first', [
          { path: 'body.customer_id', message: 'is linked', b2b_customer_id: existing.b2bCustomerId },
        ]);
      }
      const buyer = tx.em.create(Buyer, { tenantId: tx.tenantId, customerId, b2bCustomerId: id, createdAt: tx.now() });
      try {
        await tx.em.flush();
      } catch (error) {
        if (error instanceof UniqueConstraintViolationException) throw new AppError(409, 'BUYER_ALREADY_LINKED', 'This customer already buys for a company', [{ path: 'body.customer_id', message: 'is linked' }]);
        throw error;
      }
      return { buyer, customer: account };
    });
  }

  /** The company's buyers, oldest link first (keyset over the link time and the account id). */
  async buyers(id: string, request: { cursor?: string; limit: number }): Promise<{ views: BuyerView[]; page: Page<{ id: string; created_at: string }> }> {
    return this.db.tenant(async ({ em, tenantId }) => {
      if (!(await em.count(B2BCustomer, { id }))) throw b2bCustomerNotFound();
      const ks = keyset({ ...request, sort: 'created_at' }, { created_at: { sql: 'created_at', type: 'timestamptz' } });
      const rows = await em.execute<Array<{ id: string; created_key: string }>>(
        `select id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_key
           from (select customer_id as id, created_at from b2b_buyer where tenant_id = ? and b2b_customer_id = ?) b
          ${ks.where ? `where ${ks.where}` : ''} ${ks.tail}`,
        [tenantId, id, ...ks.params],
      );
      const page = ks.finish(rows.map((r) => ({ id: r.id, created_at: r.created_key })), (r) => r.created_at);
      const accounts = new Map((await em.find(Customer, { id: { $in: page.items.map((r) => r.id) } })).map((c) => [c.id, c]));
      const views = page.items.flatMap((r) => {
        const account = accounts.get(r.id);
        return account ? [{ buyer: { tenantId: '', customerId: r.id, b2bCustomerId: id, createdAt: new Date(r.created_at) }, customer: account }] : [];
      });
      return { views, page };
    });
  }

  async removeBuyer(id: string, customerId: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      await lockCustomer(tx, id);
      const deleted = await tx.em.nativeDelete(Buyer, { b2bCustomerId: id, customerId });
      if (deleted === 0) throw AppError.notFound('Buyer', 'BUYER_NOT_FOUND');
    });
  }
}

export async function lockCustomer(tx: Tx, id: string): Promise<B2BCustomer> {
  const customer = await tx.em.findOne(B2BCustomer, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!customer) throw b2bCustomerNotFound();
  return customer;
}

async function assertPriceList(tx: Tx, id: string): Promise<void> {
  if (await tx.em.count(PriceList, { id })) return;
  throw AppError.unprocessable('PRICE_LIST_NOT_FOUND', `Price list ${id} does not exist`, [{ path: 'body.price_list_id', message: 'is not a price list of this store' }]);
}

/** Writes now, so that a RUC taken by a concurrent request is the same 409 as the check. */
async function flushUnique(tx: Tx, ruc: string): Promise<void> {
  try {
    await tx.em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw rucTaken(ruc);
    throw error;
  }
}
