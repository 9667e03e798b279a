import { randomUUID } from 'node:crypto';
import { AppError, Database, decodeCursor, encodeCursor, moneyFor, uuidArray, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import type { Collection, CollectionSortOrder } from '../entities/collection.js';
import { CollectionProduct } from '../entities/collection-product.js';
import { Product } from '../entities/product.js';
import type { CollectionProductCreate } from '../schemas/collection.js';
import type { PageQuery } from '../schemas/common.js';
import { findCollection, lockCollection } from './collections.js';
import { CATALOG_TRANSLATIONS } from './translations.js';
import { priceInSql, type PricedIn } from './variant-prices.js';

/** The collections each product belongs to (GraphQL `Product.collections`); an extension point. */
export interface CollectionsOfProducts {
  /** `locale`: a locale other than the store's default, whose titles replace the collections' own where they have one. */
  collectionsOf(productIds: string[], options?: { activeOnly?: boolean; locale?: string }): Promise<Map<string, Array<{ id: string; title: string }>>>;
}

export const ProductCollections = Symbol.for('qhatu.catalog.product-collections');

/** A product as a collection lists it. */
export interface CollectionEntry {
  id: string;
  title: string;
  slug: string;
  /** Minor units of `currency`; null: no variant of the product has a price in that currency. */
  price: number | null;
  currency: string;
  position: number;
}

export interface EntryPage {
  entries: CollectionEntry[];
  pagination: { cursor: string | null; has_next: boolean; limit: number };
}

interface EntryRow {
  entry_id: string;
  product_id: string;
  title: string;
  handle: string;
  /** A bigint (text from the driver) in another currency. */
  price: string | number | null;
  currency: string | null;
  position: number;
  /** Timestamps as exact ISO text (microseconds kept), for cursors. */
  added_key: string;
  product_created_key: string;
}

/**
 * The price an entry shows, as a lateral join on the membership `cp` (`ep.price`, `ep.currency`):
 * its product's first variant by position, in the default currency; in another, the first variant
 * with a price there (explicit, else derived), as the product reads leave out the others (decision 0109).
 */
function entryPriceSql(priced: PricedIn | undefined): string {
  if (!priced) {
    return `left join lateral (select v.price, v.currency from catalog_variant v
                where v.tenant_id = cp.tenant_id and v.product_id = cp.product_id
                order by v.position, v.id limit 1) ep on true`;
  }
  const p = priceInSql(priced, 'v');
  return `left join lateral (select ${p.price} as price, ${p.currency} as currency from catalog_variant v ${p.join}
              where v.tenant_id = cp.tenant_id and v.product_id = cp.product_id and ${p.sellable}
              order by v.position, v.id limit 1) ep on true`;
}

const isoText = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

// Keyset pagination over the collection's own order, on an index of catalog_collection_product:
// `manual` by (position, added time, entry id), `-created_at` by (product created_at, product id) descending.
const ORDERS: Record<CollectionSortOrder, { key: string; after: string; order: string }> = {
  manual: {
    key: '(cp.position, cp.created_at, cp.id)',
    after: '> (?::int, ?::timestamptz, ?::uuid)',
    order: 'cp.position, cp.created_at, cp.id',
  },
  '-created_at': {
    key: '(cp.product_created_at, cp.product_id)',
    after: '< (?::timestamptz, ?::uuid)',
    order: 'cp.product_created_at desc, cp.product_id desc',
  },
};

/** Products in collections: adding, listing in the collection's order, removing. */
@injectable()
export class CollectionProducts implements CollectionsOfProducts {
  constructor(@inject(Database) private readonly db: Database) {}

  async add(collectionId: string, input: CollectionProductCreate): Promise<CollectionProduct> {
    return this.db.tenant(async (tx) => {
      const { em } = tx;
      const collection = await lockCollection(em, collectionId);
      const product = await em.findOne(Product, { id: input.product_id }, { fields: ['id', 'createdAt'] });
      if (!product) {
        throw AppError.unprocessable('PRODUCT_NOT_FOUND', `Product ${input.product_id} does not exist`, [
          { path: 'body.product_id', message: 'is not a product of this store' },
        ]);
      }
      const [state] = await em.execute<Array<{ last: number | null; present: boolean | null }>>(
        `select max(position) as last, bool_or(product_id = ?) as present
           from catalog_collection_product where tenant_id = ? and collection_id = ?`,
        [product.id, tx.tenantId, collection.id],
      );
      if (state?.present) {
        throw AppError.conflict('The product is already in this collection', 'PRODUCT_ALREADY_IN_COLLECTION', [
          { path: 'body.product_id', message: 'is already in the collection' },
        ]);
      }
      const membership = em.create(CollectionProduct, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        collectionId: collection.id,
        productId: product.id,
        position: input.position ?? (state?.last == null ? 0 : state.last + 1),
        productCreatedAt: product.createdAt,
        createdAt: tx.now(),
      });
      collection.productCount += 1;
      tx.publish('products.collection.product_added', membershipEvent(membership));
      await em.flush();
      return membership;
    });
  }

  /**
   * One page of the collection's products, in its sort order; storefronts see active products only.
   * `priced`: a currency other than the store's default, each entry's price in it (null where no
   * variant has one); the order and the cursors are the same in every currency.
   */
  async page(collectionId: string, page: PageQuery, options: { activeOnly?: boolean; priced?: PricedIn } = {}): Promise<EntryPage> {
    return this.db.tenant(async (tx) => {
      const { em, tenantId } = tx;
      const collection = await findCollection(em, collectionId, options);
      const order = ORDERS[collection.sortOrder];
      const params: unknown[] = [tenantId, collection.id];
      let after = '';
      if (page.cursor) {
        params.push(...cursorValues(collection, page.cursor));
        after = `and ${order.key} ${order.after}`;
      }
      params.push(page.limit + 1);
      const rows = await em.execute<EntryRow[]>(
        `select cp.id as entry_id, cp.product_id, cp.position, p.title, p.handle,
                ${isoText('cp.created_at')} as added_key, ${isoText('cp.product_created_at')} as product_created_key,
                ep.price, ep.currency
           from catalog_collection_product cp
           join catalog_product p on p.tenant_id = cp.tenant_id and p.id = cp.product_id
           ${entryPriceSql(options.priced)}
          where cp.tenant_id = ? and cp.collection_id = ? ${options.activeOnly ? `and p.status = 'active'` : ''} ${after}
          order by ${order.order}
          limit ?`,
        params,
      );
      const hasNext = rows.length > page.limit;
      const items = hasNext ? rows.slice(0, page.limit) : rows;
      const last = items[items.length - 1];
      // A product always has a variant, so the default currency's entries name theirs; the store's is read only for one that has none.
      const fallback = options.priced?.currency ?? (items.some((r) => r.currency === null) ? (await moneyFor(tx)).defaultCurrency : '');
      return {
        entries: items.map((r) => ({
          id: r.product_id,
          title: r.title,
          slug: r.handle,
          price: r.price === null ? null : Number(r.price),
          currency: r.currency ?? fallback,
          position: r.position,
        })),
        pagination: { cursor: hasNext && last ? cursorOf(collection.sortOrder, last) : null, has_next: hasNext, limit: page.limit },
      };
    });
  }

  async remove(collectionId: string, productId: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const { em } = tx;
      const collection = await lockCollection(em, collectionId);
      const membership = await em.findOne(CollectionProduct, { collectionId, productId });
      if (!membership) throw AppError.notFound('Product in this collection', 'PRODUCT_NOT_IN_COLLECTION');
      em.remove(membership);
      collection.productCount -= 1;
      tx.publish('products.collection.product_removed', membershipEvent(membership));
      await em.flush();
    });
  }

  /**
   * A product is being deleted: it leaves every collection, and their counters follow, in one
   * statement of the deleting transaction (the rows it removes are exactly the ones it counts).
   */
  async forgetProduct(tx: Tx, productId: string): Promise<void> {
    await tx.em.execute(
      `with gone as (
         delete from catalog_collection_product where tenant_id = ? and product_id = ? returning collection_id)
       update catalog_collection c set product_count = c.product_count - 1
         from gone where c.tenant_id = ? and c.id = gone.collection_id`,
      [tx.tenantId, productId, tx.tenantId],
    );
  }

  /** The collections of a whole page of products, in one statement, titled in the locale asked. */
  async collectionsOf(productIds: string[], options: { activeOnly?: boolean; locale?: string } = {}) {
    const byProduct = new Map<string, Array<{ id: string; title: string }>>();
    if (productIds.length === 0) return byProduct;
    const title = options.locale ? CATALOG_TRANSLATIONS.field('c', 'collection', options.locale, 'title') : 'c.title';
    const rows = await this.db.read((sql) =>
      sql.query<{ product_id: string; id: string; title: string }>(
        `select cp.product_id, c.id, ${title} as title
           from catalog_collection_product cp
           join catalog_collection c on c.tenant_id = cp.tenant_id and c.id = cp.collection_id
          where cp.tenant_id = ? and cp.product_id = any(?::uuid[]) ${options.activeOnly ? `and c.status = 'active'` : ''}
          order by c.position, c.title, c.id`,
        [sql.tenantId, uuidArray(productIds)],
      ),
    );
    for (const r of rows) byProduct.set(r.product_id, [...(byProduct.get(r.product_id) ?? []), { id: r.id, title: r.title }]);
    return byProduct;
  }
}

function cursorOf(sortOrder: CollectionSortOrder, row: EntryRow): string {
  return sortOrder === 'manual'
    ? encodeCursor({ s: sortOrder, v: [row.position, row.added_key], i: row.entry_id })
    : encodeCursor({ s: sortOrder, v: row.product_created_key, i: row.product_id });
}

/** The bind values of a cursor this list issued for the collection's current sort order; anything else is a 400. */
function cursorValues(collection: Collection, cursor: string): unknown[] {
  const { v, i } = decodeCursor(cursor, collection.sortOrder);
  const isTime = (x: unknown): x is string => typeof x === 'string' && !Number.isNaN(Date.parse(x));
  let values: unknown[] | null = null;
  if (collection.sortOrder === 'manual' && Array.isArray(v) && Number.isInteger(v[0]) && isTime(v[1])) values = [v[0], v[1], i];
  if (collection.sortOrder === '-created_at' && isTime(v)) values = [v, i];
  if (!values) {
    throw AppError.validation('The cursor is not valid', [{ path: 'cursor', message: 'not a cursor this API issued' }]);
  }
  return values;
}

function membershipEvent(m: CollectionProduct) {
  return { id: m.id, collection_id: m.collectionId, product_id: m.productId, position: m.position };
}
