import { AppError, Database, keyset, pgDate, type KeysetColumn, type Page, type PageRequest, type SqlReader } from '@qhatu/core';
import { Products } from '@qhatu/plugin-catalog';
import { inject, injectable } from 'tsyringe';
import type { Review, ReviewStatus } from '../entities/review.js';
import { readRating, summaryOf, type RatingSummary } from './rating.js';
import { reviewNotFound } from './reviews.js';
import { effective, readSettings } from './settings.js';

/**
 * The storefront's review reads in plain SQL, each one read-only transaction: a product page asks
 * for its reviews and its rating on every view, and they skip the ORM's hydration.
 */

const COLUMNS = `id, tenant_id, product_id, customer_id, order_id, verified_purchase, author_name, rating, title, body, status, moderated_at, created_at, updated_at`;
const SORTS: Record<string, KeysetColumn> = { created_at: { sql: 'created_at', type: 'timestamptz' } };

type Row = Record<string, unknown>;

function toReview(r: Row): Review {
  return {
    id: r.id as string,
    tenantId: r.tenant_id as string,
    productId: r.product_id as string,
    customerId: r.customer_id as string,
    orderId: (r.order_id as string | null) ?? null,
    verifiedPurchase: r.verified_purchase as boolean,
    authorName: r.author_name as string,
    rating: Number(r.rating),
    title: (r.title as string | null) ?? null,
    body: (r.body as string | null) ?? null,
    status: r.status as ReviewStatus,
    moderatedAt: r.moderated_at ? pgDate(r.moderated_at) : null,
    createdAt: pgDate(r.created_at),
    updatedAt: pgDate(r.updated_at),
  } as Review;
}

export interface ReviewFilter {
  status?: ReviewStatus;
  product_id?: string;
  customer_id?: string;
}

/** The caller: the store's admin sees every status and hidden reviews; the storefront does not. */
export interface Reader {
  admin: boolean;
}

const EMPTY_PAGE = (page: PageRequest): Page<Review> => ({ items: [], cursorOf: () => '', pagination: { cursor: null, has_next: false, limit: page.limit } });

@injectable()
export class ReviewReads {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Products) private readonly products: Products,
  ) {}

  /** A product's reviews of one status; 404 PRODUCT_NOT_FOUND for a product the caller may not see. */
  async ofProduct(productId: string, status: ReviewStatus, page: PageRequest, reader: Reader): Promise<Page<Review>> {
    if (!reader.admin && status !== 'approved') {
      throw AppError.forbidden('Only the store may list pending or rejected reviews; the storefront sees approved ones');
    }
    await this.exists(productId, reader);
    return this.db.read(async (sql) => ((await shown(sql, productId, reader)) ? readPage(sql, page, { product_id: productId, status }) : EMPTY_PAGE(page)));
  }

  /** The rating of the approved reviews (zero when the store hides them from the storefront). */
  async rating(productId: string, reader: Reader): Promise<RatingSummary> {
    await this.exists(productId, reader);
    return this.db.read(async (sql) => ((await shown(sql, productId, reader)) ? readRating(sql, productId) : summaryOf(productId, 0, 0)));
  }

  /** The moderation queue: every review of the store, by status, product or customer. */
  async list(page: PageRequest, filter: ReviewFilter): Promise<Page<Review>> {
    return this.db.read((sql) => readPage(sql, page, filter));
  }

  async get(id: string): Promise<Review> {
    return this.db.read(async (sql) => {
      const [row] = await sql.query<Row>(`select ${COLUMNS} from reviews_review where tenant_id = ? and id = ?`, [sql.tenantId, id]);
      if (!row) throw reviewNotFound();
      return toReview(row);
    });
  }

  /** 404 PRODUCT_NOT_FOUND unless the product is the store's (and on sale, for the storefront). */
  private async exists(productId: string, reader: Reader): Promise<void> {
    await this.products.get(productId, { activeOnly: !reader.admin });
  }
}

/** Whether the caller sees the product's reviews: admins always, the storefront when the settings show them. */
async function shown(sql: SqlReader, productId: string, reader: Reader): Promise<boolean> {
  if (reader.admin) return true;
  const { store, product } = await readSettings(sql, productId);
  return effective(store, product).visible;
}

async function readPage(sql: SqlReader, page: PageRequest, filter: ReviewFilter): Promise<Page<Review>> {
  const conditions = ['tenant_id = ?'];
  const params: unknown[] = [sql.tenantId];
  const where = (condition: string, ...values: unknown[]) => {
    conditions.push(condition);
    params.push(...values);
  };
  if (filter.product_id) where('product_id = ?', filter.product_id);
  if (filter.customer_id) where('customer_id = ?', filter.customer_id);
  if (filter.status) where('status = ?', filter.status);
  const resume = keyset(page, SORTS);
  if (resume.where) where(resume.where, ...resume.params);
  const rows = await sql.query<Row>(`select ${COLUMNS} from reviews_review where ${conditions.join(' and ')} ${resume.tail}`, params);
  return resume.finish(rows.map(toReview), (r) => r.createdAt.toISOString());
}
