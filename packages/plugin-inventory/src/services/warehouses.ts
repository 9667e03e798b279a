import { randomUUID } from 'node:crypto';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, Database, paginate, searchWhere, type Page, type PageRequest, type Tx } from '@qhatu/core';
import { Variant } from '@qhatu/plugin-catalog';
import { inject, injectable } from 'tsyringe';
import { StockLevel } from '../entities/stock-level.js';
import { Warehouse, type LocationType, type OperatingHours, type WarehouseAddress } from '../entities/warehouse.js';
import type { WarehouseCreate } from '../schemas/warehouse.js';
import { StockLedger } from './stock-ledger.js';

export const WAREHOUSE_EVENTS = ['inventory.warehouse.created', 'inventory.warehouse.updated', 'inventory.warehouse.deleted'] as const;

export interface WarehouseFilter {
  is_active?: boolean;
  is_default?: boolean;
  allows_pickup?: boolean;
  fulfills_online_orders?: boolean;
  location_type?: LocationType;
  q?: string;
}

/** A stock record with what the catalog says of its variant. */
export interface StockLevelView {
  level: StockLevel;
  productId: string | null;
  sku: string | null;
}

export interface WarehouseDetail {
  warehouse: Warehouse;
  stock: StockLevelView[];
}

/** Warehouses: the only place that writes them. */
@injectable()
export class Warehouses {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(StockLedger) private readonly ledger: StockLedger,
  ) {}

  async create(input: WarehouseCreate): Promise<Warehouse> {
    return this.db.tenant(async (tx) => {
      const { em } = tx;
      await lockDefaultChoice(tx);
      await assertCodeFree(em, input.code);
      // The first warehouse is the default, whatever the request says.
      const first = (await em.count(Warehouse, {})) === 0;
      const isDefault = first || input.is_default === true;
      const isActive = input.is_active ?? true;
      if (isDefault && !isActive) throw inactiveDefault();
      if (isDefault && !first) await this.unsetDefault(tx);
      const at = tx.now();
      const warehouse = em.create(Warehouse, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        ...fields(input),
        isActive,
        isDefault,
        createdAt: at,
        updatedAt: at,
      });
      tx.publish('inventory.warehouse.created', warehouseEvent(warehouse));
      await flushOrCodeTaken(input.code, () => em.flush());
      return warehouse;
    });
  }

  async get(id: string): Promise<WarehouseDetail> {
    return this.db.tenant(async ({ em }) => {
      const warehouse = await em.findOne(Warehouse, { id });
      if (!warehouse) throw warehouseNotFound();
      const levels = await em.find(StockLevel, { warehouseId: id }, { orderBy: { createdAt: 'asc', id: 'asc' } });
      return { warehouse, stock: await describeLevels(em, levels) };
    });
  }

  async list(page: PageRequest, filter: WarehouseFilter): Promise<Page<Warehouse>> {
    return this.db.tenant(async ({ em }) => {
      const where: Record<string, unknown> = {};
      if (filter.is_active !== undefined) where.isActive = filter.is_active;
      if (filter.is_default !== undefined) where.isDefault = filter.is_default;
      if (filter.allows_pickup !== undefined) where.allowsPickup = filter.allows_pickup;
      if (filter.fulfills_online_orders !== undefined) where.fulfillsOnlineOrders = filter.fulfills_online_orders;
      if (filter.location_type) where.locationType = filter.location_type;
      if (filter.q) Object.assign(where, searchWhere('inventory_warehouse', filter.q));
      return paginate(em, Warehouse, where, page);
    });
  }

  /**
   * PUT: every field as sent, defaults for the absent ones, except `is_default` (absent keeps it).
   * Switching `is_active` moves the warehouse's stock in or out of the catalog's inventory_quantity.
   */
  async replace(id: string, input: WarehouseCreate): Promise<WarehouseDetail> {
    return this.db.tenant(async (tx) => {
      const { em } = tx;
      await lockDefaultChoice(tx);
      const warehouse = await em.findOne(Warehouse, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!warehouse) throw warehouseNotFound();
      if (input.code !== warehouse.code) await assertCodeFree(em, input.code, id);
      const isActive = input.is_active ?? true;
      const isDefault = input.is_default ?? warehouse.isDefault;
      if (warehouse.isDefault && !isDefault) {
        throw AppError.conflict('A store always has a default warehouse: make another one the default instead', 'DEFAULT_WAREHOUSE_REQUIRED', [
          { path: 'body.is_default', message: 'this is the default warehouse' },
        ]);
      }
      if (isDefault && !isActive) throw inactiveDefault();
      if (isDefault && !warehouse.isDefault) await this.unsetDefault(tx);

      const levels = await em.find(StockLevel, { warehouseId: id }, { orderBy: { createdAt: 'asc', id: 'asc' } });
      const session = isActive !== warehouse.isActive && levels.length > 0
        ? await this.ledger.open(tx, levels.map((l) => l.variantId))
        : undefined;
      Object.assign(warehouse, fields(input), { isActive, isDefault, updatedAt: tx.now() });
      session?.setWarehouseActive(id, isActive);
      tx.publish('inventory.warehouse.updated', warehouseEvent(warehouse));
      await flushOrCodeTaken(input.code, () => (session ? session.save() : em.flush()));
      return { warehouse, stock: await describeLevels(em, levels) };
    });
  }

  /** Only an empty warehouse goes; the default only when it is the last one. */
  async remove(id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const { em } = tx;
      await lockDefaultChoice(tx);
      const warehouse = await em.findOne(Warehouse, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!warehouse) throw warehouseNotFound();
      if (warehouse.isDefault && (await em.count(Warehouse, { id: { $ne: id } })) > 0) {
        throw AppError.conflict('The default warehouse cannot be deleted while others exist: make another one the default first', 'WAREHOUSE_IS_DEFAULT');
      }
      const reserved = await em.count(StockLevel, { warehouseId: id, reserved: { $gt: 0 } });
      if (reserved > 0) {
        throw AppError.conflict(`The warehouse holds reservations of ${reserved} variant(s): release or fulfil them first`, 'WAREHOUSE_HAS_RESERVATIONS', [
          { message: `${reserved} variant(s) with reserved units`, variants: reserved },
        ]);
      }
      const stocked = await em.count(StockLevel, { warehouseId: id, onHand: { $gt: 0 } });
      if (stocked > 0) {
        throw AppError.conflict(`The warehouse holds stock of ${stocked} variant(s): adjust it to 0 first`, 'WAREHOUSE_HAS_STOCK', [
          { message: `${stocked} variant(s) on hand`, variants: stocked },
        ]);
      }
      // Its empty stock records, reservation history and adjustment trail go with it (foreign keys).
      em.remove(warehouse);
      tx.publish('inventory.warehouse.deleted', { id, code: warehouse.code, deleted_at: tx.now().toISOString() });
      await em.flush();
    });
  }

  private async unsetDefault(tx: Tx): Promise<void> {
    const current = await tx.em.findOne(Warehouse, { isDefault: true }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!current) return;
    current.isDefault = false;
    current.updatedAt = tx.now();
    tx.publish('inventory.warehouse.updated', warehouseEvent(current));
    // Written before the new default: the unique index admits one default at any moment.
    await tx.em.flush();
  }
}

/** One default-warehouse decision at a time per store (first warehouse, switching, deleting). */
async function lockDefaultChoice(tx: Tx): Promise<void> {
  await tx.em.execute(`select pg_advisory_xact_lock(hashtextextended(?, 0))`, [`inventory.default-warehouse:${tx.tenantId}`]);
}

export function warehouseNotFound(): AppError {
  return AppError.notFound('Warehouse', 'WAREHOUSE_NOT_FOUND');
}

function inactiveDefault(): AppError {
  return AppError.conflict('The default warehouse must be active', 'DEFAULT_WAREHOUSE_INACTIVE', [
    { path: 'body.is_active', message: 'must be true for the default warehouse' },
  ]);
}

function codeTaken(code: string): AppError {
  return AppError.conflict(`The warehouse code "${code}" is taken`, 'WAREHOUSE_CODE_TAKEN', [{ path: 'body.code', message: 'is taken' }]);
}

async function assertCodeFree(em: EntityManager, code: string, exceptId?: string): Promise<void> {
  const where: Record<string, unknown> = { code };
  if (exceptId) where.id = { $ne: exceptId };
  if (await em.count(Warehouse, where)) throw codeTaken(code);
}

/** Two requests racing for one code: the unique index decides, and the loser hears why. */
async function flushOrCodeTaken(code: string, flush: () => Promise<void>): Promise<void> {
  try {
    await flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException && String(error.message).includes('inventory_warehouse_code')) throw codeTaken(code);
    throw error;
  }
}

function fields(input: WarehouseCreate) {
  return {
    name: input.name,
    code: input.code,
    locationType: input.location_type ?? 'warehouse',
    address: input.address ? normalAddress(input.address) : null,
    phone: input.phone ?? null,
    email: input.email ?? null,
    latitude: input.latitude ?? null,
    longitude: input.longitude ?? null,
    operatingHours: (input.operating_hours ?? {}) as OperatingHours,
    fulfillsOnlineOrders: input.fulfills_online_orders ?? true,
    allowsPickup: input.allows_pickup ?? false,
  };
}

function normalAddress(a: NonNullable<WarehouseCreate['address']>): WarehouseAddress {
  return {
    line1: a.line1 ?? null,
    city: a.city ?? null,
    state: a.state ?? null,
    postal_code: a.postal_code ?? null,
    country: a.country ?? null,
  };
}

/** Stock records with their variants' product and SKU, in one more statement. */
export async function describeLevels(em: EntityManager, levels: StockLevel[]): Promise<StockLevelView[]> {
  if (levels.length === 0) return [];
  const variants = await em.find(Variant, { id: { $in: [...new Set(levels.map((l) => l.variantId))] } });
  const byId = new Map(variants.map((v) => [v.id, v]));
  return levels.map((level) => {
    const variant = byId.get(level.variantId);
    return { level, productId: variant?.productId ?? null, sku: variant?.sku ?? null };
  });
}

function warehouseEvent(w: Warehouse) {
  return {
    id: w.id,
    code: w.code,
    name: w.name,
    location_type: w.locationType,
    is_active: w.isActive,
    is_default: w.isDefault,
    updated_at: w.updatedAt.toISOString(),
  };
}
