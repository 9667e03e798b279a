import { joinedColumns, joinedEntity, type Tx } from '@qhatu/core';
import { Product } from '../entities/product.js';
import { Variant } from '../entities/variant.js';

/** A variant of the store with its product, as the ORM manages them. */
export interface Sellable {
  variant: Variant;
  product: Product;
}

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
