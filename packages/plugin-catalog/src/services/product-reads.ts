import { AppError, keyset, pgDate, searchCondition, uuidArray, type CustomFieldValues, type KeysetColumn, type Page, type PageRequest, type SqlReader } from '@qhatu/core';
import type { Product, ProductImage, ProductStatus } from '../entities/product.js';
import type { Variant } from '../entities/variant.js';

/**
 * The product read path in plain SQL: the hottest requests of a store (product page, listing,
 * GraphQL) skip the ORM's hydration and run as one read-only transaction: a product with its
 * variants is one statement (three with BEGIN and COMMIT), a page two.
 */

const PRODUCT_COLUMNS = `id, tenant_id, title, handle, description_html, status, brand_id, supplier_id, tags, images, custom_fields, created_at, updated_at`;
const VARIANT_COLUMNS = `id, tenant_id, product_id, title, sku, price, compare_at_price, currency, weight_grams,
  requires_shipping, taxable, inventory_quantity, position, custom_fields, created_at, updated_at`;

const SORTS: Record<string, KeysetColumn> = {
  created_at: { sql: 'created_at', type: 'timestamptz' },
  updated_at: { sql: 'updated_at', type: 'timestamptz' },
  title: { sql: 'title', type: 'text' },
};

type Row = Record<string, unknown>;

function toProduct(r: Row): Product {
  return {
    id: r.id as string,
    tenantId: r.tenant_id as string,
    title: r.title as string,
    handle: r.handle as string,
    descriptionHtml: (r.description_html as string | null) ?? null,
    status: r.status as ProductStatus,
    brandId: (r.brand_id as string | null) ?? null,
    supplierId: (r.supplier_id as string | null) ?? null,
    tags: r.tags as string[],
    images: r.images as ProductImage[],
    customFields: r.custom_fields as CustomFieldValues,
    createdAt: pgDate(r.created_at),
    updatedAt: pgDate(r.updated_at),
  } as Product;
}

function toVariant(r: Row): Variant {
  return {
    id: r.id as string,
    tenantId: r.tenant_id as string,
    productId: r.product_id as string,
    title: r.title as string,
    sku: (r.sku as string | null) ?? null,
    price: r.price as number,
    compareAtPrice: (r.compare_at_price as number | null) ?? null,
    currency: r.currency as string,
    weightGrams: (r.weight_grams as number | null) ?? null,
    requiresShipping: r.requires_shipping as boolean,
    taxable: r.taxable as boolean,
    inventoryQuantity: r.inventory_quantity as number,
    position: r.position as number,
    customFields: r.custom_fields as CustomFieldValues,
    createdAt: pgDate(r.created_at),
    updatedAt: pgDate(r.updated_at),
  } as Variant;
}

export interface ProductListFilter {
  status?: ProductStatus;
  handle?: string;
  brand_id?: string;
  supplier_id?: string;
  tag?: string;
  q?: string;
  activeOnly?: boolean;
  /** Further conditions on `catalog_product` (custom-field filters), each with its placeholders' values. */
  conditions?: Array<{ sql: string; params: unknown[] }>;
}

// The variants ride on the product's row as JSON: one round trip instead of two.
const READ_PRODUCT_SQL = `select ${PRODUCT_COLUMNS}, coalesce((
    select json_agg(v order by v.position) from (
      select ${VARIANT_COLUMNS} from catalog_variant where tenant_id = p.tenant_id and product_id = p.id) v), '[]') as variants
  from catalog_product p where tenant_id = ? and id = ?`;

export async function readProduct(sql: SqlReader, id: string, activeOnly: boolean): Promise<{ product: Product; variants: Variant[] }> {
  // Prepared: the same two texts every time, and planning them costs more than running them.
  const [row] = await sql.query<Row>(`${READ_PRODUCT_SQL}${activeOnly ? ` and status = 'active'` : ''}`, [sql.tenantId, id], { prepare: true });
  if (!row) throw AppError.notFound('Product', 'PRODUCT_NOT_FOUND');
  return { product: toProduct(row), variants: (row.variants as Row[]).map(toVariant) };
}

export async function readProductPage(
  sql: SqlReader,
  page: PageRequest,
  filter: ProductListFilter,
): Promise<{ page: Page<Product>; variants: Map<string, Variant[]> }> {
  const conditions = ['tenant_id = ?'];
  const params: unknown[] = [sql.tenantId];
  const where = (condition: string, ...values: unknown[]) => {
    conditions.push(condition);
    params.push(...values);
  };
  if (filter.activeOnly) where(`status = 'active'`);
  if (filter.status) where('status = ?', filter.status);
  if (filter.handle) where('handle = ?', filter.handle);
  if (filter.brand_id) where('brand_id = ?', filter.brand_id);
  if (filter.supplier_id) where('supplier_id = ?', filter.supplier_id);
  if (filter.tag) where('tags @> ?::jsonb', JSON.stringify([filter.tag]));
  if (filter.q) where(...searchCondition('catalog_product', filter.q));
  for (const c of filter.conditions ?? []) where(c.sql, ...c.params);
  const resume = keyset(page, SORTS);
  if (resume.where) where(resume.where, ...resume.params);
  const rows = await sql.query<Row>(`select ${PRODUCT_COLUMNS} from catalog_product where ${conditions.join(' and ')} ${resume.tail}`, params);
  const field = page.sort.replace(/^-/, '');
  const result = resume.finish(rows.map(toProduct), (p) => {
    const value = field === 'title' ? p.title : field === 'updated_at' ? p.updatedAt : p.createdAt;
    return value instanceof Date ? value.toISOString() : value;
  });
  const variants = new Map<string, Variant[]>();
  if (result.items.length > 0) {
    const ids = result.items.map((p) => p.id);
    const rows = await sql.query<Row>(
      `select ${VARIANT_COLUMNS} from catalog_variant where tenant_id = ? and product_id = any(?::uuid[]) order by product_id, position`,
      [sql.tenantId, uuidArray(ids)],
    );
    for (const v of rows.map(toVariant)) variants.set(v.productId, [...(variants.get(v.productId) ?? []), v]);
  }
  return { page: result, variants };
}
