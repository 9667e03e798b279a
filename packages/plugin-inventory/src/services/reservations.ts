import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, Database, ormOf, paginate, Uuid, type ErrorDetail, type Page, type PageRequest, type SqlTx, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import type { ZodType } from 'zod';
import { StockReservation } from '../entities/stock-reservation.js';
import { Warehouse } from '../entities/warehouse.js';
import { HoldInput, ReservationLines, ReserveInput, type ReservationLine, type Shortfall } from '../schemas/reservation.js';
import { insufficientStock, StockLedger, type Shortage, type StockSession } from './stock-ledger.js';
import { VariantSettings, type StockTerms } from './variant-settings.js';

export type { HoldInput, ReservationLine, ReserveInput, Shortfall } from '../schemas/reservation.js';

/** What `hold` did for one variant. */
export interface HeldLine {
  variantId: string;
  /** Untracked: sold without a reservation, nothing held. */
  tracked: boolean;
  allowBackorder: boolean;
  requested: number;
  /** Units reserved by this call. */
  reserved: number;
  /** Units of a tracked variant it could not reserve (backordered). */
  short: number;
}

/** Units that moved for one variant in one warehouse. */
export interface ReservationChange {
  variantId: string;
  warehouseId: string;
  quantity: number;
}

export interface ReservationFilter {
  order_id?: string;
  variant_id?: string;
  warehouse_id?: string;
  active?: boolean;
}

type Settlement = 'release' | 'consume';

/**
 * Stock held for orders: the service the checkout and order plugins call, always inside their own
 * transaction (`tx`), so that an order and its reservation commit or roll back together.
 */
@injectable()
export class Reservations {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(StockLedger) private readonly ledger: StockLedger,
    @inject(VariantSettings) private readonly settings: VariantSettings,
  ) {}

  /**
   * Holds for `orderId` what the store keeps stock of among `lines`, in the default warehouse
   * (decision 0054); untracked variants are sold without a reservation (one statement tells).
   * What a tracked variant is short of: `refuse` answers 409 INSUFFICIENT_STOCK, `backorder` too
   * unless the variant allows backorders, `accept` never; the rest of what is available is reserved
   * and the line says what is `short`. Nothing is written when it refuses. `known`: the variants'
   * terms as the caller read them in this transaction (`stockTermsSql`); read here when absent.
   * Lines of untracked variants only need no ORM; stock to hold starts it on an ORM-free
   * transaction (`Database.sqlFirst`, `ormOf`).
   */
  async hold(on: Tx | SqlTx, input: HoldInput, known?: Map<string, StockTerms>): Promise<HeldLine[]> {
    const { orderId, lines, shortfall } = parse(HoldInput, input);
    const wanted = merge(lines);
    const terms = known && [...wanted.keys()].every((id) => known.has(id)) ? known : await this.settings.terms(on, [...wanted.keys()]);
    const out = [...wanted].map(([variantId, requested]): HeldLine => {
      const t = terms.get(variantId);
      return { variantId, tracked: t?.tracked ?? false, allowBackorder: t?.allowBackorder ?? false, requested, reserved: 0, short: 0 };
    });
    const tracked = out.filter((l) => l.tracked);
    if (tracked.length === 0) return out;
    const tx = await ormOf(on);
    const warehouse = await defaultWarehouse(tx.em);
    const session = await this.ledger.open(tx, tracked.map((l) => l.variantId), 'lines.variantId');
    const refused: Shortage[] = [];
    for (const line of tracked) {
      const available = warehouse ? session.available(warehouse.id, line.variantId) : 0;
      line.reserved = Math.min(line.requested, available);
      line.short = line.requested - line.reserved;
      if (line.short > 0 && refuses(shortfall, line)) refused.push({ variantId: line.variantId, warehouseId: warehouse?.id ?? null, requested: line.requested, available });
    }
    if (refused.length > 0) throw insufficientStock(refused);
    const takes = new Map(tracked.filter((l) => l.reserved > 0).map((l) => [l.variantId, l.reserved]));
    if (warehouse && takes.size > 0) {
      await this.addRows(tx, session, orderId, warehouse.id, takes);
      await session.save();
    }
    return out;
  }

  /**
   * Holds `lines` for `orderId` in one warehouse (the given one, else the default), all or
   * nothing: 409 INSUFFICIENT_STOCK names every short variant with what is available. Calling it
   * again for the same order adds to what the order holds.
   */
  async reserve(tx: Tx, input: ReserveInput): Promise<StockReservation[]> {
    const { orderId, lines, warehouseId } = parse(ReserveInput, input);
    const wanted = merge(lines);
    const warehouse = await warehouseFor(tx.em, warehouseId);
    const session = await this.ledger.open(tx, [...wanted.keys()], 'lines.variantId');
    const short = [...wanted]
      .filter(([variantId, quantity]) => session.available(warehouse.id, variantId) < quantity)
      .map(([variantId, requested]) => ({ variantId, warehouseId: warehouse.id, requested, available: session.available(warehouse.id, variantId) }));
    if (short.length > 0) throw insufficientStock(short);
    const rows = await this.addRows(tx, session, orderId, warehouse.id, wanted);
    await session.save();
    return rows;
  }

  /** Adds `wanted` to what the order holds in the warehouse (its rows made where it has none); the caller saves the session. */
  private async addRows(tx: Tx, session: StockSession, orderId: string, warehouseId: string, wanted: Map<string, number>): Promise<StockReservation[]> {
    const existing = await tx.em.find(StockReservation, { orderId, warehouseId, variantId: { $in: [...wanted.keys()] } }, { refresh: true });
    const rows = new Map(existing.map((r) => [r.variantId, r]));
    const at = tx.now();
    for (const [variantId, quantity] of wanted) {
      session.levelFor(warehouseId, variantId).reserved += quantity;
      const row = rows.get(variantId) ?? tx.em.create(StockReservation, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        orderId,
        warehouseId,
        variantId,
        quantity: 0,
        consumedQuantity: 0,
        releasedQuantity: 0,
        createdAt: at,
        updatedAt: at,
      });
      row.quantity += quantity;
      row.updatedAt = at;
      rows.set(variantId, row);
    }
    return [...rows.values()];
  }

  /**
   * Gives back what `orderId` holds (a cancelled order), or only `lines` of it; the units become
   * available again. Releasing an order that holds nothing changes nothing.
   */
  async release(tx: Tx, orderId: string, lines?: ReservationLine[]): Promise<ReservationChange[]> {
    return this.settle(tx, 'release', orderId, lines);
  }

  /**
   * Fulfilment: takes what `orderId` holds (or only `lines` of it: partial fulfilment) out of
   * stock. On hand and reserved both go down, so available is unchanged; each warehouse and
   * variant gets an adjustment with reason `sold` and the order's id.
   */
  async consume(tx: Tx, orderId: string, lines?: ReservationLine[]): Promise<ReservationChange[]> {
    return this.settle(tx, 'consume', orderId, lines);
  }

  /** Every reservation row of an order, held or settled. */
  async ofOrder(tx: Tx, orderId: string): Promise<StockReservation[]> {
    return tx.em.find(StockReservation, { orderId: parse(Uuid, orderId) }, { orderBy: { variantId: 'asc', warehouseId: 'asc' } });
  }

  async list(page: PageRequest, filter: ReservationFilter): Promise<Page<StockReservation>> {
    return this.db.tenant(({ em }) => {
      const where: Record<string, unknown> = {};
      if (filter.order_id) where.orderId = filter.order_id;
      if (filter.variant_id) where.variantId = filter.variant_id;
      if (filter.warehouse_id) where.warehouseId = filter.warehouse_id;
      if (filter.active !== undefined) where.quantity = filter.active ? { $gt: 0 } : 0;
      return paginate(em, StockReservation, where, page);
    });
  }

  private async settle(tx: Tx, mode: Settlement, orderId: string, lines?: ReservationLine[]): Promise<ReservationChange[]> {
    parse(Uuid, orderId);
    const wanted = lines ? merge(parse(ReservationLines, lines)!) : undefined;
    const variantIds = wanted
      ? [...wanted.keys()]
      : [...new Set((await tx.em.find(StockReservation, { orderId, quantity: { $gt: 0 } })).map((r) => r.variantId))];
    if (variantIds.length === 0) return [];

    const session = await this.ledger.open(tx, variantIds, 'lines.variantId');
    const held = await tx.em.find(
      StockReservation,
      { orderId, variantId: { $in: variantIds }, quantity: { $gt: 0 } },
      { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { variantId: 'asc', warehouseId: 'asc' }, refresh: true },
    );
    const takes = plan(held, variantIds, wanted);
    const changes = takes.map(({ row, quantity }) => settleRow(tx, session, mode, row, quantity));
    await session.save();
    return changes;
  }
}

/** Which rows give how much: all they hold, or `wanted` per variant (409 NOT_RESERVED when short). */
function plan(held: StockReservation[], variantIds: string[], wanted?: Map<string, number>) {
  const takes: Array<{ row: StockReservation; quantity: number }> = [];
  const short: ErrorDetail[] = [];
  for (const variantId of variantIds) {
    const rows = held.filter((r) => r.variantId === variantId);
    const total = rows.reduce((sum, r) => sum + r.quantity, 0);
    let need = wanted?.get(variantId) ?? total;
    if (need > total) {
      short.push({ path: 'lines', message: `${need} requested, ${total} reserved`, variant_id: variantId, requested: need, reserved: total });
      continue;
    }
    for (const row of rows) {
      if (need === 0) break;
      const quantity = Math.min(need, row.quantity);
      takes.push({ row, quantity });
      need -= quantity;
    }
  }
  if (short.length > 0) {
    throw AppError.conflict(`The order has fewer units reserved than requested of ${short.map((s) => s.variant_id).join(', ')}`, 'NOT_RESERVED', short);
  }
  return takes;
}

function settleRow(tx: Tx, session: StockSession, mode: Settlement, row: StockReservation, quantity: number): ReservationChange {
  const level = session.levelFor(row.warehouseId, row.variantId);
  if (level.reserved < quantity) throw new Error(`Stock of ${row.variantId} in ${row.warehouseId} holds less than its reservations`);
  level.reserved -= quantity;
  row.quantity -= quantity;
  row.updatedAt = tx.now();
  if (mode === 'release') {
    row.releasedQuantity += quantity;
  } else {
    row.consumedQuantity += quantity;
    session.adjust({ warehouseId: row.warehouseId, variantId: row.variantId, delta: -quantity, reason: 'sold', orderId: row.orderId });
  }
  return { variantId: row.variantId, warehouseId: row.warehouseId, quantity };
}

/** The given warehouse (422 WAREHOUSE_NOT_FOUND) or the default one (409 NO_DEFAULT_WAREHOUSE); it must be active. */
async function warehouseFor(em: EntityManager, id?: string): Promise<Warehouse> {
  const warehouse = await em.findOne(Warehouse, id ? { id } : { isDefault: true }, { lockMode: LockMode.PESSIMISTIC_READ });
  if (!warehouse && id) {
    throw AppError.unprocessable('WAREHOUSE_NOT_FOUND', `Warehouse ${id} does not exist`, [{ path: 'warehouseId', message: 'is not a warehouse of this store' }]);
  }
  if (!warehouse) throw AppError.conflict('The store has no warehouse to reserve stock in', 'NO_DEFAULT_WAREHOUSE');
  if (!warehouse.isActive) throw AppError.conflict(`Warehouse ${warehouse.code} is not active`, 'WAREHOUSE_INACTIVE');
  return warehouse;
}

/** The store's default warehouse, share-locked (it cannot be switched off under the reservation), or null. */
async function defaultWarehouse(em: EntityManager): Promise<Warehouse | null> {
  return em.findOne(Warehouse, { isDefault: true }, { lockMode: LockMode.PESSIMISTIC_READ });
}

/** Whether a short line stops the hold. */
function refuses(shortfall: Shortfall, line: HeldLine): boolean {
  return shortfall === 'refuse' || (shortfall === 'backorder' && !line.allowBackorder);
}

/** Lines of one variant added together. */
function merge(lines: Array<{ variantId: string; quantity: number }>): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of lines) out.set(line.variantId, (out.get(line.variantId) ?? 0) + line.quantity);
  return out;
}

/** Input from another plugin is checked like a request body: 400 VALIDATION_ERROR with the paths. */
function parse<T>(schema: ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details = result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
  throw AppError.validation(`${details[0].path || 'input'}: ${details[0].message}`, details);
}
