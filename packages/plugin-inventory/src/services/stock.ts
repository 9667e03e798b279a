import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, Database, paginate, type Page, type PageRequest, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { StockAdjustment, type AdjustmentReason } from '../entities/stock-adjustment.js';
import { StockLevel } from '../entities/stock-level.js';
import { Warehouse } from '../entities/warehouse.js';
import type { StockAdjust } from '../schemas/stock.js';
import { StockLedger } from './stock-ledger.js';
import { VariantSettings } from './variant-settings.js';
import { describeLevels, warehouseNotFound, type StockLevelView } from './warehouses.js';

/** Units that came back (a return received), for `Stock.restock`. */
export interface RestockInput {
  /** Absent: the store's default warehouse. */
  warehouseId?: string | null;
  lines: Array<{ variantId: string; quantity: number }>;
  note?: string | null;
  /** The order the units were sold on. */
  orderId?: string | null;
}

export interface AdjustmentFilter {
  variant_id?: string;
  reason?: AdjustmentReason;
  order_id?: string;
}

/** Stock per variant and warehouse: adjustments by hand, their audit trail, and what is available. */
@injectable()
export class Stock {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(StockLedger) private readonly ledger: StockLedger,
    @inject(VariantSettings) private readonly settings: VariantSettings,
  ) {}

  /**
   * Puts units that came back into a warehouse's stock inside the caller's transaction (reason
   * `returned`, the order's id on the adjustment). Variants the store keeps no stock of are left
   * alone, so a return never starts counting a variant sold without stock. The warehouse must be
   * the store's (422 WAREHOUSE_NOT_FOUND) and active (409 WAREHOUSE_INACTIVE); without one, the
   * default (409 NO_DEFAULT_WAREHOUSE). Answers the adjustments made.
   */
  async restock(tx: Tx, input: RestockInput): Promise<StockAdjustment[]> {
    const wanted = input.lines.filter((l) => l.quantity > 0);
    if (wanted.length === 0) return [];
    const warehouse = await tx.em.findOne(Warehouse, input.warehouseId ? { id: input.warehouseId } : { isDefault: true }, { lockMode: LockMode.PESSIMISTIC_READ });
    if (!warehouse && input.warehouseId) {
      throw AppError.unprocessable('WAREHOUSE_NOT_FOUND', `Warehouse ${input.warehouseId} does not exist`, [{ path: 'warehouse_id', message: 'is not a warehouse of this store' }]);
    }
    if (!warehouse) throw AppError.conflict('The store has no default warehouse to put the units back in', 'NO_DEFAULT_WAREHOUSE');
    if (!warehouse.isActive) throw AppError.conflict(`Warehouse ${warehouse.code} is not active`, 'WAREHOUSE_INACTIVE');
    const terms = await this.settings.terms(tx, wanted.map((l) => l.variantId));
    const tracked = wanted.filter((l) => terms.get(l.variantId)?.tracked);
    if (tracked.length === 0) return [];
    const session = await this.ledger.open(tx, tracked.map((l) => l.variantId), 'lines.variant_id');
    const made = tracked.map((l) =>
      session.adjust({ warehouseId: warehouse.id, variantId: l.variantId, delta: l.quantity, reason: 'returned', note: input.note ?? null, orderId: input.orderId ?? null }),
    );
    await session.save();
    return made;
  }

  /** Adds or removes units in one warehouse; 409 INSUFFICIENT_STOCK rather than below what is available. */
  async adjust(warehouseId: string, input: StockAdjust): Promise<StockAdjustment> {
    return this.db.tenant(async (tx) => {
      await lockWarehouse(tx.em, warehouseId);
      const session = await this.ledger.open(tx, [input.variant_id], 'body.variant_id');
      const adjustment = session.adjust({
        warehouseId,
        variantId: input.variant_id,
        delta: input.delta,
        reason: input.reason,
        note: input.note || null,
        path: 'body.delta',
      });
      await session.save();
      return adjustment;
    });
  }

  async levels(warehouseId: string, page: PageRequest, filter: { variant_id?: string }): Promise<{ items: StockLevelView[]; page: Page<StockLevel> }> {
    return this.db.tenant(async ({ em }) => {
      await requireWarehouse(em, warehouseId);
      const where: Record<string, unknown> = { warehouseId };
      if (filter.variant_id) where.variantId = filter.variant_id;
      const result = await paginate(em, StockLevel, where, page);
      return { items: await describeLevels(em, result.items), page: result };
    });
  }

  async adjustments(warehouseId: string, page: PageRequest, filter: AdjustmentFilter): Promise<Page<StockAdjustment>> {
    return this.db.tenant(async ({ em }) => {
      await requireWarehouse(em, warehouseId);
      const where: Record<string, unknown> = { warehouseId };
      if (filter.variant_id) where.variantId = filter.variant_id;
      if (filter.reason) where.reason = filter.reason;
      if (filter.order_id) where.orderId = filter.order_id;
      return paginate(em, StockAdjustment, where, page);
    });
  }

  /**
   * Units available (on hand − reserved) per variant, in one warehouse or summed over the active
   * ones; 0 for a variant without stock. A read for checkouts: it locks nothing, so only
   * `Reservations.reserve` can promise the units.
   */
  async available(tx: Tx, variantIds: string[], warehouseId?: string): Promise<Map<string, number>> {
    const ids = [...new Set(variantIds)];
    const out = new Map(ids.map((id) => [id, 0]));
    if (ids.length === 0) return out;
    const where: Record<string, unknown> = { variantId: { $in: ids } };
    if (warehouseId) where.warehouseId = warehouseId;
    const levels = await tx.em.find(StockLevel, where);
    const inactive = warehouseId ? [] : await tx.em.find(Warehouse, { isActive: false });
    const skip = new Set(inactive.map((w) => w.id));
    for (const level of levels) {
      if (skip.has(level.warehouseId)) continue;
      out.set(level.variantId, (out.get(level.variantId) ?? 0) + level.onHand - level.reserved);
    }
    return out;
  }
}

/** The warehouse of the path, share-locked: it cannot be deleted or switched off under the change. */
export async function lockWarehouse(em: EntityManager, id: string): Promise<Warehouse> {
  const warehouse = await em.findOne(Warehouse, { id }, { lockMode: LockMode.PESSIMISTIC_READ });
  if (!warehouse) throw warehouseNotFound();
  return warehouse;
}

async function requireWarehouse(em: EntityManager, id: string): Promise<void> {
  if (!(await em.count(Warehouse, { id }))) throw warehouseNotFound();
}
