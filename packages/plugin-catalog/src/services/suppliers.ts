import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, Database, paginate, type Page, type PageRequest } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Supplier } from '../entities/supplier.js';
import type { SupplierCreate, SupplierPatch } from '../schemas/supplier.js';

export const SUPPLIER_EVENTS = ['products.supplier.created', 'products.supplier.updated', 'products.supplier.deleted'] as const;

/** Suppliers: the only place that writes them. */
@injectable()
export class Suppliers {
  constructor(@inject(Database) private readonly db: Database) {}

  async create(input: SupplierCreate): Promise<Supplier> {
    return this.db.tenant(async (tx) => {
      const { em } = tx;
      await assertCodeFree(em, input.code);
      const at = tx.now();
      const supplier = em.create(Supplier, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        name: input.name,
        code: input.code ?? null,
        email: input.email ?? null,
        phone: input.phone ?? null,
        address: null,
        metadata: {},
        createdAt: at,
        updatedAt: at,
      });
      tx.publish('products.supplier.created', supplierEvent(supplier));
      await em.flush();
      return supplier;
    });
  }

  async get(id: string): Promise<Supplier> {
    return this.db.tenant(async ({ em }) => {
      const supplier = await em.findOne(Supplier, { id });
      if (!supplier) throw AppError.notFound('Supplier', 'SUPPLIER_NOT_FOUND');
      return supplier;
    });
  }

  /** A page with the tenant's total number of suppliers. */
  async list(page: PageRequest): Promise<Page<Supplier>> {
    return this.db.tenant(({ em }) => paginate(em, Supplier, {}, page, { withTotal: true }));
  }

  async update(id: string, patch: SupplierPatch): Promise<Supplier> {
    return this.db.tenant(async (tx) => {
      const { em } = tx;
      const supplier = await em.findOne(Supplier, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!supplier) throw AppError.notFound('Supplier', 'SUPPLIER_NOT_FOUND');
      if (patch.code && patch.code !== supplier.code) await assertCodeFree(em, patch.code);
      if (patch.name !== undefined) supplier.name = patch.name;
      if (patch.code !== undefined) supplier.code = patch.code;
      if (patch.email !== undefined) supplier.email = patch.email;
      if (patch.phone !== undefined) supplier.phone = patch.phone;
      if (patch.address !== undefined) {
        supplier.address = patch.address && {
          street: patch.address.street ?? null,
          city: patch.address.city ?? null,
          country: patch.address.country ?? null,
        };
      }
      if (patch.metadata !== undefined) supplier.metadata = patch.metadata;
      supplier.updatedAt = tx.now();
      tx.publish('products.supplier.updated', supplierEvent(supplier));
      await em.flush();
      return supplier;
    });
  }

  /** Its products stay, without a supplier (the foreign key sets their supplier_id to null). */
  async remove(id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const supplier = await tx.em.findOne(Supplier, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!supplier) throw AppError.notFound('Supplier', 'SUPPLIER_NOT_FOUND');
      tx.em.remove(supplier);
      tx.publish('products.supplier.deleted', { id, deleted_at: tx.now().toISOString() });
      await tx.em.flush();
    });
  }
}

async function assertCodeFree(em: EntityManager, code: string | null | undefined): Promise<void> {
  if (code && (await em.count(Supplier, { code }))) {
    throw AppError.conflict(`The supplier code "${code}" is taken`, 'CONFLICT', [{ path: 'body.code', message: 'is taken' }]);
  }
}

function supplierEvent(s: Supplier) {
  return { id: s.id, name: s.name, code: s.code ?? null, updated_at: s.updatedAt.toISOString() };
}
