import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import { AccessToken, AccessTokens, AppError, Database, paginate, Passwords, type Page, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Vendor, type VendorStatus } from '../entities/vendor.js';
import { vendorActionTo, vendorMachine } from '../machines/vendor.js';
import type { VendorCreate, VendorListQuery, VendorUpdate } from '../schemas/vendor.js';
import { publish, vendorData } from './events.js';
import { pctToBps } from './money.js';

export const vendorNotFound = () => AppError.notFound('Vendor', 'VENDOR_NOT_FOUND');

const emailTaken = (email: string) =>
  new AppError(409, 'VENDOR_ALREADY_EXISTS', `A vendor with e-mail ${email} already exists in this store`, [{ path: 'body.email', message: 'is taken' }]);

/** The marketplace's vendors: the only writer of them. */
@injectable()
export class Vendors {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Passwords) private readonly passwords: Passwords,
    @inject(AccessTokens) private readonly tokens: AccessTokens,
  ) {}

  /** A new vendor, `pending` until the store activates it; the password (hashed before the transaction) opens the portal. */
  async create(input: VendorCreate): Promise<Vendor> {
    const passwordHash = input.password ? await this.passwords.hash(input.password) : null;
    return this.db.tenant(async (tx) => {
      if (await tx.em.count(Vendor, { email: input.email })) throw emailTaken(input.email);
      const vendor = tx.em.create(Vendor, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        name: input.name,
        email: input.email,
        countryCode: input.country_code,
        commissionBps: pctToBps(input.default_commission_pct),
        passwordHash,
        status: 'pending',
        createdAt: tx.now(),
        updatedAt: tx.now(),
      });
      publish(tx, 'marketplace.vendor.created', vendorData(vendor));
      await flushUnique(tx, input.email);
      return vendor;
    });
  }

  async get(id: string): Promise<Vendor> {
    return this.db.tenant((tx) => findVendor(tx, id));
  }

  async list(query: VendorListQuery): Promise<Page<Vendor>> {
    const status = query.status ?? query['filter[status]'];
    return this.db.tenant(({ em }) => paginate(em, Vendor, status ? { status } : {}, { cursor: query.cursor, limit: query.limit, sort: query.sort }));
  }

  /** Changes the fields sent (not the status: see `setStatus`); a new password is hashed before the transaction. */
  async update(id: string, patch: VendorUpdate): Promise<Vendor> {
    const passwordHash = patch.password ? await this.passwords.hash(patch.password) : undefined;
    return this.db.tenant(async (tx) => {
      const vendor = await lockVendor(tx, id);
      if (patch.email !== undefined && patch.email !== vendor.email && (await tx.em.count(Vendor, { email: patch.email, id: { $ne: id } }))) throw emailTaken(patch.email);
      if (patch.name !== undefined) vendor.name = patch.name;
      if (patch.email !== undefined) vendor.email = patch.email;
      if (patch.country_code !== undefined) vendor.countryCode = patch.country_code;
      if (patch.default_commission_pct !== undefined) vendor.commissionBps = pctToBps(patch.default_commission_pct);
      if (passwordHash !== undefined) vendor.passwordHash = passwordHash;
      vendor.updatedAt = tx.now();
      await flushUnique(tx, vendor.email);
      return vendor;
    });
  }

  /**
   * Moves the vendor to `status` (the machine's table; anything else is 409). A suspended vendor's
   * portal tokens are revoked and its offers stop selling; orders already paid are still paid out.
   */
  async setStatus(id: string, status: VendorStatus): Promise<Vendor> {
    return this.db.tenant(async (tx) => {
      const vendor = await lockVendor(tx, id);
      const from = vendor.status;
      const action = vendorActionTo(status);
      if (!action) {
        throw new AppError(409, 'INVALID_STATE_TRANSITION', `Cannot move a vendor back to ${status}`, [{ message: 'allowed: pending → active | suspended, active → suspended, suspended → active', from, to: status }]);
      }
      await vendorMachine.apply(tx, vendor, action);
      vendor.updatedAt = tx.now();
      if (vendor.status === 'suspended') {
        await tx.em.nativeUpdate(AccessToken, { kind: 'vendor', subjectId: vendor.id, revokedAt: null }, { revokedAt: tx.now() });
        tx.afterCommit(() => this.tokens.forgetTenant(tx.tenantId));
      }
      publish(tx, 'marketplace.vendor.status_changed', { ...vendorData(vendor), from, to: vendor.status });
      return vendor;
    });
  }
}

/** The vendor, in the caller's store (another store's is as unknown), or 404 VENDOR_NOT_FOUND. */
export async function findVendor(tx: Tx, id: string): Promise<Vendor> {
  const vendor = await tx.em.findOne(Vendor, { id });
  if (!vendor) throw vendorNotFound();
  return vendor;
}

export async function lockVendor(tx: Tx, id: string): Promise<Vendor> {
  const vendor = await tx.em.findOne(Vendor, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!vendor) throw vendorNotFound();
  return vendor;
}

/** Writes now, so that an e-mail taken by a concurrent request is the same 409 as the check. */
async function flushUnique(tx: Tx, email: string): Promise<void> {
  try {
    await tx.em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw emailTaken(email);
    throw error;
  }
}
