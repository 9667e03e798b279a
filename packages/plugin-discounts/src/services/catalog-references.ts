import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, uuidArray, withArticle, type TxReader } from '@qhatu/core';
import { Collection, Product } from '@qhatu/plugin-catalog';
import type { CouponTarget } from '../entities/coupon.js';


/** Every id must be a product (or collection) of the store: else 422 PRODUCT_NOT_FOUND / COLLECTION_NOT_FOUND. */
export async function requireTargets(
  em: EntityManager,
  target: Exclude<CouponTarget, 'all'>,
  ids: string[],
  pathOf: (index: number) => string,
): Promise<void> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return;
  const entity = target === 'products' ? Product : Collection;
  if ((await em.count(entity as typeof Product, { id: { $in: unique } })) === unique.length) return;
  const found = await em.find(entity as typeof Product, { id: { $in: unique } }, { fields: ['id'] });
  const known = new Set(found.map((r) => r.id));
  const what = target === 'products' ? 'product' : 'collection';
  const details = ids.flatMap((id, i) => (known.has(id) ? [] : [{ path: pathOf(i), message: `is not ${withArticle(what)} of this store`, id }]));
  throw AppError.unprocessable(
    target === 'products' ? 'PRODUCT_NOT_FOUND' : 'COLLECTION_NOT_FOUND',
    `${details.length === 1 ? `The ${what} ${details[0].id} does` : `${details.length} ${what}s do`} not exist`,
    details,
  );
}

export async function requireProduct(em: EntityManager, id: string, path: string): Promise<void> {
  await requireTargets(em, 'products', [id], () => path);
}

/** Of `productIds`, those that belong to at least one of `collectionIds` (one statement). */
export async function productsInCollections(tx: TxReader, collectionIds: string[], productIds: string[]): Promise<Set<string>> {
  if (collectionIds.length === 0 || productIds.length === 0) return new Set();
  const rows = await tx.query<{ product_id: string }>(
    `select distinct product_id from catalog_collection_product
      where tenant_id = ? and collection_id = any(?::uuid[]) and product_id = any(?::uuid[])`,
    [tx.tenantId, uuidArray(collectionIds), uuidArray(productIds)],
  );
  return new Set(rows.map((r) => r.product_id));
}
