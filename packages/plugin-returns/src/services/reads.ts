import { raw } from '@mikro-orm/core';
import { Database, paginate, searchWhere, type Page, type PageRequest } from '@qhatu/core';
import { Order } from '@qhatu/plugin-orders';
import { inject, injectable } from 'tsyringe';
import { Return, ReturnLine, type ReturnKind, type ReturnStatus } from '../entities/return.js';
import { orderNotFound, returnNotFound } from './common.js';
import { PAYMENT_REFUNDER, type PaymentRefunder, type RefundState } from './payment-refunds.js';

export interface ReturnFilter {
  status?: ReturnStatus;
  kind?: ReturnKind;
  order_id?: string;
  customer_id?: string;
  /** Words of the customer's e-mail, or a return's or an order's number. */
  q?: string;
  /** A customer token: only this customer's returns exist. */
  ownerId?: string;
}

/**
 * Words of the e-mail (core's indexed search); `12`, `R12` or `#12` also finds return 12 and the
 * returns of order 12, each on its number's index (a union, so each side keeps its index).
 */
function searchReturns(q: string): Record<string, never[]> {
  const digits = /^#?[Rr]?(\d{1,9})$/.exec(q.trim());
  if (!digits) return searchWhere('returns_return', q);
  const number = Number(digits[1]);
  const union = `select returns_return_matches(?)
    union all select id from returns_return where number = ?
    union all select id from returns_return where order_id in (select id from orders_order where number = ?)`;
  return { [raw((alias: string) => `${alias}.id in (${union})`, [q, number, number])]: [] };
}

/** A return with its lines and its refunds as the payments plugin has them. */
export interface ReturnView {
  ret: Return;
  lines: ReturnLine[];
  refunds: Map<string, RefundState>;
}

/** Reading returns: a page is three statements (returns, their lines, their refunds). */
@injectable()
export class ReturnReads {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(PAYMENT_REFUNDER) private readonly payments: PaymentRefunder,
  ) {}

  async get(id: string, ownerId?: string): Promise<ReturnView> {
    return this.db.tenant(async (tx) => {
      const ret = await tx.em.findOne(Return, ownerId ? { id, customerId: ownerId } : { id });
      if (!ret) throw returnNotFound();
      return (await this.views(tx, [ret]))[0];
    });
  }

  async list(page: PageRequest, filter: ReturnFilter): Promise<{ views: ReturnView[]; page: Page<Return> }> {
    return this.db.tenant(async (tx) => {
      const where: Record<string, unknown> = {};
      if (filter.status) where.status = filter.status;
      if (filter.kind) where.kind = filter.kind;
      if (filter.order_id) where.orderId = filter.order_id;
      if (filter.customer_id) where.customerId = filter.customer_id;
      if (filter.q) Object.assign(where, searchReturns(filter.q));
      if (filter.ownerId) where.$and = [{ customerId: filter.ownerId }];
      const result = await paginate(tx.em, Return, where, page);
      return { views: await this.views(tx, result.items), page: result };
    });
  }

  /** The returns of an order, oldest first (404 ORDER_NOT_FOUND for another store's order, or another customer's). */
  async ofOrder(orderId: string, page: Omit<PageRequest, 'sort'>, ownerId?: string): Promise<{ views: ReturnView[]; page: Page<Return> }> {
    const found = await this.db.tenant(({ em }) => em.count(Order, ownerId ? { id: orderId, customerId: ownerId } : { id: orderId }));
    if (!found) throw orderNotFound();
    return this.list({ ...page, sort: 'created_at' }, { order_id: orderId, ownerId });
  }

  private async views(tx: Parameters<Parameters<Database['tenant']>[0]>[0], returns: Return[]): Promise<ReturnView[]> {
    if (returns.length === 0) return [];
    const lines = await tx.em.find(ReturnLine, { returnId: { $in: returns.map((r) => r.id) } }, { orderBy: { returnId: 'asc', position: 'asc' } });
    const refunds = await this.payments.states(tx, returns.flatMap((r) => r.refunds.map((p) => p.id)));
    return returns.map((ret) => ({ ret, lines: lines.filter((l) => l.returnId === ret.id), refunds }));
  }
}
