import { randomUUID } from 'node:crypto';
import { FlushMode, LockMode } from '@mikro-orm/core';
import { AppError, TenantContext, type ErrorDetail, type Tx } from '@qhatu/core';
import { Product, productEvent, Variant } from '@qhatu/plugin-catalog';
import { injectable } from 'tsyringe';
import { StockAdjustment, type AdjustmentReason } from '../entities/stock-adjustment.js';
import { StockLevel } from '../entities/stock-level.js';
import { Warehouse } from '../entities/warehouse.js';
import { MAX_QUANTITY } from '../schemas/stock.js';

/** The catalog keeps `inventory_quantity` in a PostgreSQL int. */
const MAX_VARIANT_QUANTITY = 2_147_483_647;

export const STOCK_EVENTS = ['inventory.stock.adjusted', 'inventory.stock.depleted'] as const;

export interface StockChange {
  warehouseId: string;
  variantId: string;
  delta: number;
  reason: AdjustmentReason;
  note?: string | null;
  orderId?: string | null;
  /** Where the change came from in the caller's input, for error details (e.g. `body.delta`). */
  path?: string;
}

export const levelKey = (warehouseId: string, variantId: string) => `${warehouseId}:${variantId}`;

/**
 * Every change of stock goes through a session opened here, so that all of them take their locks
 * in one order and keep the catalog's `inventory_quantity` right:
 *
 *   warehouse (FOR SHARE, or FOR UPDATE when it changes) → variants (FOR UPDATE, by id)
 *   → stock records of those variants (FOR UPDATE, by variant then warehouse) → reservations.
 *
 * The variant row is the lock that serializes everything about one variant in every warehouse,
 * which makes the sum of available stock read under it exact. Product rows are never locked nor
 * written here (the catalog locks product → variant; taking them the other way round could deadlock).
 */
@injectable()
export class StockLedger {
  /**
   * Locks `variantIds` (all of which must be variants of the store, else 422 VARIANT_NOT_FOUND
   * naming `path`) and every stock record they have.
   */
  async open(tx: Tx, variantIds: string[], path = 'variant_id'): Promise<StockSession> {
    const { em } = tx;
    // Locking reloads the rows; what the caller changed but did not write yet must not be lost.
    await em.flush();
    const ids = [...new Set(variantIds)].sort();
    const variants = await em.find(Variant, { id: { $in: ids } }, { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { id: 'asc' }, refresh: true });
    if (variants.length !== ids.length) {
      const found = new Set(variants.map((v) => v.id));
      const missing = ids.filter((id) => !found.has(id));
      throw AppError.unprocessable(
        'VARIANT_NOT_FOUND',
        `${missing.length === 1 ? 'Variant' : 'Variants'} ${missing.join(', ')} ${missing.length === 1 ? 'is not a variant' : 'are not variants'} of this store`,
        missing.map((variant_id) => ({ path, message: 'is not a variant of this store', variant_id })),
      );
    }
    const levels = await em.find(
      StockLevel,
      { variantId: { $in: ids } },
      { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { variantId: 'asc', warehouseId: 'asc' }, refresh: true },
    );
    const inactive = await em.find(Warehouse, { isActive: false });
    return new StockSession(tx, variants, levels, new Set(inactive.map((w) => w.id)));
  }
}

/** The locked stock of a few variants, changed in memory and saved once. */
export class StockSession {
  private readonly variants = new Map<string, Variant>();
  private readonly levels = new Map<string, StockLevel>();
  /** Available per record when the session opened, to tell when one runs out. */
  private readonly availableBefore = new Map<StockLevel, number>();
  private readonly touched = new Set<StockLevel>();

  constructor(
    private readonly tx: Tx,
    variants: Variant[],
    levels: StockLevel[],
    private readonly inactive: Set<string>,
  ) {
    for (const v of variants) this.variants.set(v.id, v);
    for (const level of levels) {
      this.levels.set(levelKey(level.warehouseId, level.variantId), level);
      this.availableBefore.set(level, level.onHand - level.reserved);
    }
  }

  level(warehouseId: string, variantId: string): StockLevel | undefined {
    return this.levels.get(levelKey(warehouseId, variantId));
  }

  /** On hand minus reserved in one warehouse; 0 without a record. */
  available(warehouseId: string, variantId: string): number {
    const level = this.level(warehouseId, variantId);
    return level ? level.onHand - level.reserved : 0;
  }

  /** The record of a variant in a warehouse, made (empty) when there is none; marked as changed. */
  levelFor(warehouseId: string, variantId: string): StockLevel {
    let level = this.level(warehouseId, variantId);
    if (!level) {
      const at = this.tx.now();
      level = this.tx.em.create(StockLevel, {
        id: randomUUID(),
        tenantId: this.tx.tenantId,
        warehouseId,
        variantId,
        onHand: 0,
        reserved: 0,
        createdAt: at,
        updatedAt: at,
      });
      this.levels.set(levelKey(warehouseId, variantId), level);
      this.availableBefore.set(level, 0);
    }
    this.touched.add(level);
    level.updatedAt = this.tx.now();
    return level;
  }

  /** Changes on-hand stock and writes the audit row; available never goes below 0 (409 INSUFFICIENT_STOCK). */
  adjust(change: StockChange): StockAdjustment {
    const { warehouseId, variantId, delta } = change;
    const available = this.available(warehouseId, variantId);
    if (delta < 0 && -delta > available) {
      throw insufficientStock([{ variantId, warehouseId, requested: -delta, available, path: change.path }]);
    }
    const level = this.levelFor(warehouseId, variantId);
    if (level.onHand + delta > MAX_QUANTITY) {
      throw AppError.unprocessable('QUANTITY_TOO_LARGE', `A warehouse holds at most ${MAX_QUANTITY} units of a variant`, [
        { path: change.path ?? 'delta', message: `would make ${level.onHand + delta} on hand`, variant_id: variantId, on_hand: level.onHand },
      ]);
    }
    const previous = level.onHand;
    level.onHand += delta;
    const principal = TenantContext.principal();
    const adjustment = this.tx.em.create(StockAdjustment, {
      id: randomUUID(),
      tenantId: this.tx.tenantId,
      warehouseId,
      variantId,
      delta,
      reason: change.reason,
      note: change.note ?? null,
      previousQuantity: previous,
      quantity: level.onHand,
      available: level.onHand - level.reserved,
      orderId: change.orderId ?? null,
      actorKind: principal?.kind ?? 'system',
      actorTokenId: principal?.tokenId ?? null,
      createdAt: this.tx.now(),
    });
    this.tx.publish('inventory.stock.adjusted', {
      adjustment_id: adjustment.id,
      warehouse_id: warehouseId,
      variant_id: variantId,
      delta,
      quantity: level.onHand,
      available: adjustment.available,
      reason: change.reason,
      order_id: adjustment.orderId ?? null,
    });
    return adjustment;
  }

  /** A warehouse switched on or off: its stock starts or stops counting for the catalog. */
  setWarehouseActive(warehouseId: string, active: boolean): void {
    if (active) this.inactive.delete(warehouseId);
    else this.inactive.add(warehouseId);
  }

  private announceStock(productIds: Set<string>): Promise<void> {
    return announce(this.tx, productIds);
  }

  /**
   * Sets each variant's `inventory_quantity` to its available stock over active warehouses,
   * publishes `inventory.stock.depleted` for records that ran out, and flushes.
   */
  async save(): Promise<void> {
    const changedProducts = new Set<string>();
    const totals = new Map<string, number>([...this.variants.keys()].map((id) => [id, 0]));
    for (const level of this.levels.values()) {
      if (this.inactive.has(level.warehouseId)) continue;
      totals.set(level.variantId, (totals.get(level.variantId) ?? 0) + level.onHand - level.reserved);
    }
    for (const [id, total] of totals) {
      const variant = this.variants.get(id)!;
      if (total > MAX_VARIANT_QUANTITY) {
        throw AppError.unprocessable('QUANTITY_TOO_LARGE', `A variant can have at most ${MAX_VARIANT_QUANTITY} units available`, [
          { message: `would make ${total} available`, variant_id: id },
        ]);
      }
      if (variant.inventoryQuantity !== total) {
        variant.inventoryQuantity = total;
        variant.updatedAt = this.tx.now();
        changedProducts.add(variant.productId);
      }
    }
    await this.announceStock(changedProducts);
    for (const level of this.touched) {
      const before = this.availableBefore.get(level) ?? 0;
      if (before > 0 && level.onHand - level.reserved === 0) {
        this.tx.publish('inventory.stock.depleted', {
          warehouse_id: level.warehouseId,
          variant_id: level.variantId,
          on_hand: level.onHand,
          reserved: level.reserved,
          available: 0,
          inventory_quantity: totals.get(level.variantId) ?? 0,
        });
      }
    }
    await this.tx.em.flush();
  }
}

/**
 * `products.product.updated` for products whose stock changed: the specification's event carries
 * `stock`, and receivers follow stock through it. The product row is read, never locked (the
 * catalog locks product before variants; this path holds variants already).
 */
async function announce(tx: Tx, productIds: Set<string>): Promise<void> {
  if (productIds.size === 0) return;
  const ids = [...productIds];
  // No auto-flush here: the changes go out together at the ledger's one flush.
  const products = await tx.em.find(Product, { id: { $in: ids } }, { flushMode: FlushMode.COMMIT });
  const variants = await tx.em.find(Variant, { productId: { $in: ids } }, { orderBy: { position: 'asc' }, flushMode: FlushMode.COMMIT });
  for (const product of products) {
    const own = variants.filter((v) => v.productId === product.id);
    tx.publish('products.product.updated', { ...productEvent(product, own), updated_at: tx.now().toISOString() });
  }
}

export interface Shortage {
  variantId: string;
  /** null: the store has no warehouse to reserve in. */
  warehouseId: string | null;
  requested: number;
  available: number;
  path?: string;
}

/** 409 INSUFFICIENT_STOCK naming each variant that is short, with what is available. */
export function insufficientStock(shortages: Shortage[]): AppError {
  const details: ErrorDetail[] = shortages.map((s) => ({
    ...(s.path ? { path: s.path } : {}),
    message: `${s.requested} requested, ${s.available} available`,
    variant_id: s.variantId,
    warehouse_id: s.warehouseId,
    requested: s.requested,
    available: s.available,
  }));
  const names = shortages.map((s) => s.variantId).join(', ');
  return AppError.conflict(`Not enough stock of ${names}`, 'INSUFFICIENT_STOCK', details);
}
