import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, Database, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { CustomerAddress } from '../entities/address.js';
import { Customer } from '../entities/customer.js';
import type { CustomerAddressCreate } from '../schemas/address.js';
import { customerDisabled, customerNotFound } from './customers.js';

export const MAX_ADDRESSES = 100;

export interface AddressAccess {
  /** The caller is the customer (a customer token): a disabled customer is refused. */
  self?: boolean;
}

const addressNotFound = () => AppError.notFound('Address', 'ADDRESS_NOT_FOUND');

/**
 * A customer's address book. Every write locks the customer's row first, so that "exactly one
 * default when there are addresses" holds under concurrent requests; the partial unique index
 * is the second wall.
 */
@injectable()
export class CustomerAddresses {
  constructor(@inject(Database) private readonly db: Database) {}

  /** The default first, then oldest first. */
  async list(customerId: string, access: AddressAccess = {}): Promise<CustomerAddress[]> {
    return this.db.tenant(async ({ em }) => {
      const customer = await em.findOne(Customer, { id: customerId }, { fields: ['id', 'status'] });
      if (!customer) throw customerNotFound();
      if (access.self && customer.status !== 'active') throw customerDisabled();
      return em.find(CustomerAddress, { customerId }, { orderBy: { isDefault: 'desc', createdAt: 'asc', id: 'asc' } });
    });
  }

  /** The first address is the default; `is_default: true` moves the default to the new one. */
  async create(customerId: string, input: CustomerAddressCreate, access: AddressAccess = {}): Promise<CustomerAddress> {
    return this.db.tenant(async (tx) => {
      const { em } = tx;
      await lockCustomer(em, customerId, access);
      const count = await em.count(CustomerAddress, { customerId });
      if (count >= MAX_ADDRESSES) {
        throw AppError.unprocessable('ADDRESS_LIMIT_REACHED', `A customer has at most ${MAX_ADDRESSES} addresses`);
      }
      const isDefault = count === 0 || input.is_default === true;
      if (isDefault) await unsetDefault(tx, customerId);
      const at = tx.now();
      const address = em.create(CustomerAddress, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        customerId,
        ...fields(input),
        isDefault,
        createdAt: at,
        updatedAt: at,
      });
      await em.flush();
      return address;
    });
  }

  /** PUT: every field as sent (absent ones become null); `is_default` as on create. */
  async replace(customerId: string, addressId: string, input: CustomerAddressCreate, access: AddressAccess = {}): Promise<CustomerAddress> {
    return this.db.tenant(async (tx) => {
      const { em } = tx;
      await lockCustomer(em, customerId, access);
      const address = await em.findOne(CustomerAddress, { id: addressId, customerId });
      if (!address) throw addressNotFound();
      if (input.is_default === false && address.isDefault) {
        throw AppError.conflict('A customer with addresses always has a default one; make another address the default instead', 'DEFAULT_ADDRESS_REQUIRED', [
          { path: 'body.is_default', message: 'this is the default address' },
        ]);
      }
      if (input.is_default === true && !address.isDefault) {
        await unsetDefault(tx, customerId);
        address.isDefault = true;
      }
      Object.assign(address, fields(input));
      address.updatedAt = tx.now();
      await em.flush();
      return address;
    });
  }

  /** Deleting the default makes the most recently added remaining address the default. */
  async remove(customerId: string, addressId: string, access: AddressAccess = {}): Promise<void> {
    await this.db.tenant(async (tx) => {
      const { em } = tx;
      await lockCustomer(em, customerId, access);
      const address = await em.findOne(CustomerAddress, { id: addressId, customerId });
      if (!address) throw addressNotFound();
      em.remove(address);
      await em.flush();
      if (address.isDefault) await promoteNewest(tx, customerId);
    });
  }
}

async function lockCustomer(em: EntityManager, id: string, access: AddressAccess): Promise<void> {
  const customer = await em.findOne(Customer, { id }, { fields: ['id', 'status'], lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!customer) throw customerNotFound();
  if (access.self && customer.status !== 'active') throw customerDisabled();
}

/** Runs before the new default is written: the partial unique index is checked row by row. */
async function unsetDefault(tx: Tx, customerId: string): Promise<void> {
  await tx.em.nativeUpdate(CustomerAddress, { customerId, isDefault: true }, { isDefault: false, updatedAt: tx.now() });
}

async function promoteNewest(tx: Tx, customerId: string): Promise<void> {
  const [next] = await tx.em.find(CustomerAddress, { customerId }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: 1 });
  if (!next) return;
  next.isDefault = true;
  next.updatedAt = tx.now();
  await tx.em.flush();
}

const blank = (s: string | null | undefined) => (s ? s : null);

function fields(input: CustomerAddressCreate) {
  return {
    firstName: blank(input.first_name),
    lastName: blank(input.last_name),
    company: blank(input.company),
    address1: input.address1,
    address2: blank(input.address2),
    city: input.city,
    province: blank(input.province),
    countryCode: input.country_code,
    zip: blank(input.zip),
    phone: blank(input.phone),
  };
}
