import { raw } from '@mikro-orm/core';
import { AppError, CustomFields, Database, decodeCursor, encodeCursor, paginate, searchPage, type CursorValueType, type CustomFieldFilter, type Page, type PageRequest, type SqlPart } from '@qhatu/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { inject, injectable } from 'tsyringe';
import type { z } from 'zod';
import { Fulfillment } from '../entities/fulfillment.js';
import { LineItem } from '../entities/line-item.js';
import { Order, type OrderStatus } from '../entities/order.js';
import type { OrderOut } from '../schemas/order.js';
import { orderNotFound } from './lifecycle.js';
import { AMOUNT_DUE_SQL } from './ledger.js';

export interface OrderFilter {
  status?: OrderStatus;
  customer_id?: string;
  customer_email?: string;
  q?: string;
  /** A customer token: only this customer's orders exist. */
  ownerId?: string;
  /** Equal to these values of indexed custom fields. */
  customFields?: CustomFieldFilter[];
}

/** An order with its lines and shipments. */
export interface OrderView {
  order: Order;
  lines: LineItem[];
  fulfillments: Fulfillment[];
}

/** The sorts of the order list: their columns and the type of their cursor's value. */
const SORTS: Record<string, CursorValueType> = { created_at: 'timestamptz', number: 'bigint', total: 'bigint' };

const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const LINE_JSON = `json_build_object('id', l.id, 'variant_id', l.variant_id, 'product_id', l.product_id, 'title', l.title,
  'variant_title', l.variant_title, 'sku', l.sku, 'quantity', l.quantity, 'fulfilled_quantity', l.fulfilled_quantity,
  'backordered_quantity', l.backordered_quantity, 'unit_price_amount', l.unit_price_amount, 'total_amount', l.total_amount,
  'requires_shipping', l.requires_shipping, 'discount_amount', l.discount_amount, 'tax_class', l.tax_class, 'tax_rate', l.tax_rate,
  'tax_amount', l.tax_amount, 'offer_id', l.offer_id)`;

const FULFILLMENT_JSON = `json_build_object('id', f.id, 'order_id', f.order_id, 'status', f.status, 'carrier', f.carrier,
  'tracking_number', f.tracking_number, 'tracking_url', f.tracking_url, 'estimated_delivery', ${iso('f.estimated_delivery')},
  'line_items', (select coalesce(json_agg(jsonb_build_object('return_id', null) || i.item order by i.n), '[]') from jsonb_array_elements(f.items) with ordinality i(item, n)), 'shipped_at', ${iso('f.shipped_at')}, 'delivered_at', ${iso('f.delivered_at')},
  'created_at', ${iso('f.created_at')}, 'updated_at', ${iso('f.updated_at')})`;

// As `orderOut` shows an order (amount_due as `amountDue` works it out).
const ORDER_JSON = `json_build_object('id', o.id, 'number', o.number, 'status', o.status, 'customer_id', o.customer_id,
  'customer_email', o.customer_email, 'currency', o.currency, 'subtotal', o.subtotal, 'shipping_total', o.shipping_total,
  'discount_total', o.discount_total, 'tax_total', o.tax_total, 'shipping_tax', o.shipping_tax, 'prices_include_tax', o.prices_include_tax,
  'total', o.total, 'amount_paid', o.amount_paid, 'amount_refunded', o.amount_refunded, 'amount_waived', o.amount_waived,
  'amount_due', ${AMOUNT_DUE_SQL},
  'line_items', coalesce((select json_agg(${LINE_JSON} order by l.position) from orders_line_item l where l.tenant_id = o.tenant_id and l.order_id = o.id), '[]'),
  'shipping_address', o.shipping_address,
  'fulfillments', coalesce((select json_agg(${FULFILLMENT_JSON} order by f.created_at, f.id) from orders_fulfillment f where f.tenant_id = o.tenant_id and f.order_id = o.id), '[]'),
  'history', o.history, 'cancel_reason', o.cancel_reason, 'cancelled_at', ${iso('o.cancelled_at')}, 'paid_at', ${iso('o.paid_at')},
  'fulfilled_at', ${iso('o.fulfilled_at')}, 'custom_fields', o.custom_fields, 'created_at', ${iso('o.created_at')}, 'updated_at', ${iso('o.updated_at')})`;

const PAGE_COLUMNS = 'tenant_id, id, number, status, customer_id, customer_email, currency, subtotal, shipping_total, discount_total, tax_total, shipping_tax, prices_include_tax, total, amount_paid, amount_refunded, amount_waived, shipping_address, history, cancel_reason, cancelled_at, paid_at, fulfilled_at, custom_fields, created_at, updated_at';

/**
 * True when no transaction that changed the store's orders is invisible to the snapshot given (the
 * kept answer's): every such transaction left a row in `orders_change` (migration 0011), and one
 * not in the snapshot has an id from the snapshot's xmin on. Null (no snapshot kept) is false.
 * The ids are bounded on both sides (a row this transaction sees was written below its own
 * snapshot's xmax, so the upper bound changes nothing): PostgreSQL then takes the range for a
 * narrow one and reads it on the primary key, where an open `>=` on a parameter, taken for a third
 * of the table, had it scan the store's whole hour of changes for the row that is not there.
 */
const UNCHANGED_SINCE = `?::pg_snapshot is not null and not exists (select 1 from orders_change c
    where c.tenant_id = ? and c.xid >= pg_snapshot_xmin(?::pg_snapshot) and c.xid < pg_snapshot_xmax(pg_current_snapshot())
      and not pg_visible_in_snapshot(c.xid, ?::pg_snapshot))`;

/** A page as the list answers it. */
export interface OrderPage {
  unchanged?: false;
  items: OrderJson[];
  pagination: Page<unknown>['pagination'];
}

/** A page read with `kept`: with the snapshot it was read at, or only that when the kept answer still holds. */
export type KeptOrderPage = (OrderPage & { snapshot: string }) | { unchanged: true; snapshot: string };

/** An order as the list answers it (`OrderOut`), custom fields as stored until presented. */
export type OrderJson = Omit<z.output<typeof OrderOut>, 'custom_fields'> & { custom_fields: unknown };

/**
 * A page of orders in the list's keyset order, with or without `q` (decision 0082): the words of
 * the customer's e-mail and name (core's indexed search); `1002` or `#1002` also finds that order
 * by its number, on the number's index.
 */
function pageStatement(tenantId: string, page: PageRequest, filter: OrderFilter, fieldConditions: SqlPart[], columns: string): SqlPart {
  const desc = page.sort.startsWith('-');
  const field = page.sort.replace(/^-/, '');
  const type = SORTS[field];
  if (!type) throw new Error(`No keyset column for sort "${field}"`);
  const conditions: SqlPart[] = [{ sql: 'tenant_id = ?', params: [tenantId] }];
  const where = (sql: string, ...params: unknown[]) => conditions.push({ sql, params });
  if (filter.status) where('status = ?', filter.status);
  if (filter.customer_id) where('customer_id = ?', filter.customer_id);
  if (filter.customer_email) where('customer_email = ?', filter.customer_email.toLowerCase());
  if (filter.ownerId) where('customer_id = ?', filter.ownerId);
  conditions.push(...fieldConditions);
  if (page.cursor) {
    const state = decodeCursor(page.cursor, page.sort, type);
    where(`(${field}, id) ${desc ? '<' : '>'} (?::${type}, ?::uuid)`, state.v, state.i);
  }
  const dir = desc ? 'desc' : 'asc';
  if (filter.q) {
    const digits = /^#?(\d{1,9})$/.exec(filter.q);
    const number = digits ? Number(digits[1]) : undefined;
    const also = number === undefined ? undefined : { condition: { sql: 'number = ?', params: [number] }, ids: { sql: 'select id from orders_order where tenant_id = ? and number = ?', params: [tenantId, number] } };
    return searchPage({ table: 'orders_order', words: filter.q, columns, conditions, order: { column: field, desc }, limit: page.limit + 1, also });
  }
  return { sql: `select ${columns} from orders_order where ${conditions.map((c) => `(${c.sql})`).join(' and ')} order by ${field} ${dir}, id ${dir} limit ${page.limit + 1}`, params: conditions.flatMap((c) => c.params) };
}

/** Reading orders: a page is three statements (orders, their lines, their shipments). */
@injectable()
export class OrderReads {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(CustomFields) private readonly fields: CustomFields,
  ) {}

  async list(page: PageRequest, filter: OrderFilter): Promise<{ views: OrderView[]; page: Page<Order> }> {
    return this.db.tenant(async ({ em, tenantId }) => {
      const where: Record<string, unknown> = {};
      if (filter.status) where.status = filter.status;
      if (filter.customer_id) where.customerId = filter.customer_id;
      if (filter.customer_email) where.customerEmail = filter.customer_email.toLowerCase();
      if (filter.ownerId) where.$and = [{ customerId: filter.ownerId }];
      if (filter.q) {
        // The searched page itself (decision 0082); the list reads its orders.
        const page1 = pageStatement(tenantId, page, { ...filter }, this.fieldConditions(filter), `id, ${page.sort.replace(/^-/, '')}`);
        where[raw((alias: string) => `${alias}.id in (select id from (${page1.sql}) searched)`, page1.params)] = [];
      }
      for (const f of filter.customFields ?? []) {
        // On the field's stored column, so the planner can use its index.
        const { params } = this.fields.condition(f);
        where[raw((alias: string) => this.fields.condition(f, alias).sql, params)] = [];
      }
      const result = await paginate(em, Order, where, page);
      return { views: await this.withDetails(em, result.items), page: result };
    });
  }

  /**
   * A page of orders as the list answers it, with their lines and shipments, made by PostgreSQL
   * in one round trip: no entities, no check of the answer against its schema on the way out
   * (the orders' tests hold it to `OrderOut`). `kept`: with the snapshot the page was read at, and
   * without the page when nothing of the store changed since the snapshot of the answer the caller
   * keeps (`unless`), in the same one statement (decision 0101).
   */
  listAnswer(page: PageRequest, filter: OrderFilter): Promise<OrderPage>;
  listAnswer(page: PageRequest, filter: OrderFilter, kept: { unless?: string }): Promise<KeptOrderPage>;
  async listAnswer(page: PageRequest, filter: OrderFilter, kept?: { unless?: string }): Promise<OrderPage | KeptOrderPage> {
    const field = page.sort.replace(/^-/, '');
    const dir = page.sort.startsWith('-') ? 'desc' : 'asc';
    return this.db.readOne(async (sql) => {
      const statement = pageStatement(sql.tenantId, page, filter, this.fieldConditions(filter), PAGE_COLUMNS);
      const json = (as: string) => `select coalesce(json_agg(${ORDER_JSON} order by o.${field} ${dir}, o.id ${dir}), '[]')::text${as} from (${statement.sql}) o`;
      // Prepared unless searched (a search's text varies with its words): planning the page's JSON costs about what running it does.
      const [row] = kept
        ? await sql.query<{ items: string | null; snapshot: string }>(
            `select pg_current_snapshot()::text as snapshot, case when ${UNCHANGED_SINCE} then null else (${json('')}) end as items`,
            [kept.unless ?? null, sql.tenantId, kept.unless ?? null, kept.unless ?? null, ...statement.params],
            { prepare: !filter.q },
          )
        : await sql.query<{ items: string; snapshot?: string }>(json(' as items'), statement.params, { prepare: !filter.q });
      if (row.items === null) return { unchanged: true, snapshot: row.snapshot! };
      const rows = JSON.parse(row.items) as OrderJson[];
      const hasNext = rows.length > page.limit;
      const items = hasNext ? rows.slice(0, page.limit) : rows;
      const last = items[items.length - 1];
      return {
        items,
        pagination: { cursor: hasNext ? encodeCursor({ s: page.sort, v: last[field as 'created_at' | 'number' | 'total'], i: last.id }) : null, has_next: hasNext, limit: page.limit },
        ...(kept ? { snapshot: row.snapshot! } : {}),
      };
    });
  }

  private fieldConditions(filter: OrderFilter): SqlPart[] {
    return (filter.customFields ?? []).map((f) => this.fields.condition(f));
  }

  /** The order, or 404 ORDER_NOT_FOUND (also when `ownerId` is given and it is another customer's). */
  async get(id: string, ownerId?: string): Promise<OrderView> {
    return this.db.tenant(async ({ em }) => {
      const order = await em.findOne(Order, ownerId ? { id, customerId: ownerId } : { id });
      if (!order) throw orderNotFound();
      return (await this.withDetails(em, [order]))[0];
    });
  }

  async fulfillment(id: string): Promise<Fulfillment> {
    return this.db.tenant(async ({ em }) => {
      const found = await em.findOne(Fulfillment, { id });
      if (!found) throw AppError.notFound('Fulfillment', 'FULFILLMENT_NOT_FOUND');
      return found;
    });
  }

  private async withDetails(em: EntityManager, orders: Order[]): Promise<OrderView[]> {
    if (orders.length === 0) return [];
    const ids = orders.map((o) => o.id);
    const [lines, shipments] = await Promise.all([
      em.find(LineItem, { orderId: { $in: ids } }, { orderBy: { orderId: 'asc', position: 'asc' } }),
      em.find(Fulfillment, { orderId: { $in: ids } }, { orderBy: { createdAt: 'asc', id: 'asc' } }),
    ]);
    return orders.map((order) => ({
      order,
      lines: lines.filter((l) => l.orderId === order.id),
      fulfillments: shipments.filter((f) => f.orderId === order.id),
    }));
  }
}
