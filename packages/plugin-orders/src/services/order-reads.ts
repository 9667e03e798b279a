import { raw } from '@mikro-orm/core';
import { AppError, CustomFields, Database, paginate, searchWhere, type CustomFieldFilter, type Page, type PageRequest } from '@qhatu/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { inject, injectable } from 'tsyringe';
import { Fulfillment } from '../entities/fulfillment.js';
import { LineItem } from '../entities/line-item.js';
import { Order, type OrderStatus } from '../entities/order.js';
import { orderNotFound } from './lifecycle.js';

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

/**
 * Words of the customer's e-mail and name (core's indexed search); `1002` or `#1002` also finds
 * that order by its number, on the number's index (a union, so each side keeps its index).
 */
function searchOrders(q: string): Record<string, never[]> {
  const digits = /^#?(\d{1,9})$/.exec(q);
  if (!digits) return searchWhere('orders_order', q);
  const union = 'select orders_order_matches(?) union all select id from orders_order where number = ?';
  return { [raw((alias: string) => `${alias}.id in (${union})`, [q, Number(digits[1])])]: [] };
}

/** Reading orders: a page is three statements (orders, their lines, their shipments). */
@injectable()
export class OrderReads {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(CustomFields) private readonly fields: CustomFields,
  ) {}

  async list(page: PageRequest, filter: OrderFilter): Promise<{ views: OrderView[]; page: Page<Order> }> {
    return this.db.tenant(async ({ em }) => {
      const where: Record<string, unknown> = {};
      if (filter.status) where.status = filter.status;
      if (filter.customer_id) where.customerId = filter.customer_id;
      if (filter.customer_email) where.customerEmail = filter.customer_email.toLowerCase();
      if (filter.ownerId) where.$and = [{ customerId: filter.ownerId }];
      if (filter.q) Object.assign(where, searchOrders(filter.q));
      for (const f of filter.customFields ?? []) {
        // On the expression the field's index keeps, so the planner can use it.
        const { params } = this.fields.condition(f, 'custom_fields');
        where[raw((alias: string) => this.fields.condition(f, `${alias}.custom_fields`).sql, params)] = [];
      }
      const result = await paginate(em, Order, where, page);
      return { views: await this.withDetails(em, result.items), page: result };
    });
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
