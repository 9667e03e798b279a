import { raw } from '@mikro-orm/core';
import { Database, paginate, searchWhere, type Page, type PageRequest } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { DraftOrder, type DraftOrderStatus } from '../entities/draft-order.js';
import { draftNotFound } from './drafts.js';

export interface DraftFilter {
  status?: DraftOrderStatus;
  customer_id?: string;
  created_from?: string;
  created_to?: string;
  q?: string;
}

/**
 * Words of the e-mail (core's indexed search); `12`, `D12` or `#D12` also finds that draft by its
 * number, on the number's index (a union, so each side keeps its index).
 */
function searchDrafts(q: string): Record<string, never[]> {
  const digits = /^#?[Dd]?(\d{1,9})$/.exec(q.trim());
  if (!digits) return searchWhere('draft_orders_draft', q);
  const union = 'select draft_orders_draft_matches(?) union all select id from draft_orders_draft where number = ?';
  return { [raw((alias: string) => `${alias}.id in (${union})`, [q, Number(digits[1])])]: [] };
}

/** Reading drafts: a page is one statement (the lines are in the row). */
@injectable()
export class DraftReads {
  constructor(@inject(Database) private readonly db: Database) {}

  async list(page: PageRequest, filter: DraftFilter): Promise<Page<DraftOrder>> {
    return this.db.tenant(async ({ em }) => {
      const where: Record<string, unknown> = {};
      if (filter.status) where.status = filter.status;
      if (filter.customer_id) where.customerId = filter.customer_id;
      const created: Record<string, Date> = {};
      if (filter.created_from) created.$gte = new Date(filter.created_from);
      if (filter.created_to) created.$lt = new Date(filter.created_to);
      if (Object.keys(created).length) where.createdAt = created;
      if (filter.q) Object.assign(where, searchDrafts(filter.q));
      return paginate(em, DraftOrder, where, page);
    });
  }

  async get(id: string): Promise<DraftOrder> {
    return this.db.tenant(async ({ em }) => {
      const draft = await em.findOne(DraftOrder, { id });
      if (!draft) throw draftNotFound();
      return draft;
    });
  }
}
