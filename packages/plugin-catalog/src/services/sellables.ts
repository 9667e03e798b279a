import { joinedColumns, joinedEntity, jsonColumn, type KeptFacts, type Tx } from '@qhatu/core';
import { Product } from '../entities/product.js';
import { Variant } from '../entities/variant.js';

/** A variant of the store with its product, as the ORM manages them. */
export interface Sellable {
  variant: Variant;
  product: Product;
}

/** What a cart prices and snapshots of a variant and its product: a `Sellable`, or the same facts read with SQL. */
export interface SellableFacts {
  variant: Pick<Variant, 'id' | 'productId' | 'title' | 'sku' | 'price' | 'currency' | 'weightGrams' | 'requiresShipping' | 'taxable'>;
  product: Pick<Product, 'id' | 'title' | 'status' | 'images'>;
}

/**
 * The sellable facts of the variants that `variantIdsSql` selects, as an SQL expression that
 * answers one JSON array: put it in a select list to read them in the caller's own statement (a
 * cart reads its lines and their variants together), then turn the column into a map with
 * `sellablesFrom`. `tenantIdSql` names the tenant (a column or a placeholder of the caller's). Each
 * id is looked up by its primary key, the variant (`lateral ... limit 1`, which the planner cannot
 * turn into a join) and then its product (a scalar subquery; the variant's foreign key guarantees
 * it): as a join or an `= any(...)` of ids it
 * does not know, the planner of a small store's catalog (a few hundred variants) reads and hashes
 * every variant and product of the store, every row through row-level security (0.5 ms a read, where
 * the lookups take 0.05), and a function's guess of a hundred rows does the same to a large one.
 */
export function sellablesSql(tenantIdSql: string, variantIdsSql: string): string {
  return `(select coalesce(json_agg(sellable.fact), '[]'::json)
      from (select ${tenantIdSql} as tenant_id) as sellable_store
      cross join (select distinct id from unnest(array(${variantIdsSql})) as listed(id)) as sellable_ids
      cross join lateral (
        select json_build_object(
             'variant', json_build_object('id', v.id, 'productId', v.product_id, 'title', v.title, 'sku', v.sku, 'price', v.price,
                                          'currency', v.currency, 'weightGrams', v.weight_grams, 'requiresShipping', v.requires_shipping, 'taxable', v.taxable),
             'product', (select json_build_object('id', p.id, 'title', p.title, 'status', p.status, 'images', p.images)
                           from catalog_product p where p.tenant_id = v.tenant_id and p.id = v.product_id)) as fact
          from catalog_variant v
         where v.tenant_id = sellable_store.tenant_id and v.id = sellable_ids.id
         limit 1) as sellable)`;
}

/** The column of `sellablesSql`, by variant id. */
export function sellablesFrom(column: unknown): Map<string, SellableFacts> {
  const list = jsonColumn<SellableFacts[] | null>(column) ?? [];
  return new Map(list.map((s) => [s.variant.id, s]));
}

/**
 * `sellablesSql`'s column kept in memory by variant id (a missing variant too), under the store's
 * catalog version: every change of a product or variant bumps it in its transaction.
 */
export const SELLABLE_FACTS: KeptFacts<SellableFacts[]> = {
  topic: 'catalog',
  versionSql: (tenantSql) => `(select version::text from catalog_cache_version where tenant_id = ${tenantSql})`,
  split(column, ids) {
    const found = sellablesFrom(column);
    return ids.map((id) => [id, found.get(id) ?? null] as const);
  },
  join(entry, ids) {
    const list: SellableFacts[] = [];
    for (const id of ids) {
      const kept = entry(id) as SellableFacts | null | undefined;
      if (kept === undefined) return undefined;
      if (kept) list.push(kept);
    }
    return list;
  },
};

/**
 * The variants among `variantIds` that exist in the store, each with its product, by variant id:
 * one statement (a join), managed entities in the caller's transaction. For carts and orders,
 * which price and snapshot lines from both.
 */
export async function variantsWithProducts(tx: Tx, variantIds: string[]): Promise<Map<string, Sellable>> {
  const found = new Map<string, Sellable>();
  const ids = [...new Set(variantIds)];
  if (ids.length === 0) return found;
  const rows = await tx.em.execute<Array<Record<string, unknown>>>(
    `select ${joinedColumns(tx.em, Variant, 'v', 'variant')}, ${joinedColumns(tx.em, Product, 'p', 'product')}
       from catalog_variant v join catalog_product p on p.tenant_id = v.tenant_id and p.id = v.product_id
      where v.tenant_id = ? and v.id in (${ids.map(() => '?').join(', ')})`,
    [tx.tenantId, ...ids],
  );
  for (const row of rows) {
    const variant = joinedEntity(tx.em, Variant, row, 'variant');
    const product = joinedEntity(tx.em, Product, row, 'product');
    if (variant && product) found.set(variant.id, { variant, product });
  }
  return found;
}
