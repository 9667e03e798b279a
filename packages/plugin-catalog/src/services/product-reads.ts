import { AppError, encodeCursor, keyset, localeLiteral, pgDate, searchPage, textSearchConfig, uuidArray, type CustomFieldValues, type KeysetColumn, type Page, type PageRequest, type SqlPart, type SqlReader, type StoreMoney } from '@qhatu/core';
import type { Product, ProductImage, ProductStatus } from '../entities/product.js';
import type { Variant } from '../entities/variant.js';
import { SELLABLE_FACTS } from './sellables.js';
import { translatedSortPage } from './translated-sort.js';
import { CATALOG_TRANSLATIONS } from './translations.js';
import { explicitPricesJson, priceInSql, type PricedIn, type VariantPrice } from './variant-prices.js';

/**
 * The product read path in plain SQL: the hottest requests of a store (product page, listing,
 * GraphQL) skip the ORM's hydration and run as one read-only transaction: a product with its
 * variants is one statement (three with BEGIN and COMMIT), a page two.
 *
 * In a locale other than the store's default (`locale`), translated fields replace the product's
 * and variants' own, field by field, in the same statements (a page made of entities takes one
 * more, for its translations); the default locale's reads are the statements they always were.
 * Likewise in a currency other than the default (`priced`, decision 0097): each variant's price is
 * its explicit one there, else the derived one, and a variant with neither is left out; and an
 * admin read of a store of several currencies (`prices`) carries each variant's explicit prices.
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
    // A price in another currency is a bigint (text from the driver).
    price: Number(r.price),
    compareAtPrice: r.compare_at_price == null ? null : Number(r.compare_at_price),
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
  /** A locale other than the store's default: texts translated, and `q` found in the translations too. */
  locale?: string;
  /** A currency other than the store's default: variants priced in it, those with no price there left out. */
  priced?: PricedIn;
  /** The store's money, when the answer carries each variant's explicit prices (admin reads of a store of several currencies). */
  prices?: StoreMoney;
}

/** What a read of one product adds to the default's: its currency and the variants' explicit prices. */
export type ReadMoney = Pick<ProductListFilter, 'priced' | 'prices'>;

/** A product with its variants, and their explicit prices when asked. */
export interface ProductRead {
  product: Product;
  variants: Variant[];
  prices?: Map<string, VariantPrice[]>;
}

// The variants ride on the product's row as JSON: one round trip instead of two.
const READ_PRODUCT_SQL = `select ${PRODUCT_COLUMNS}, coalesce((
    select json_agg(v order by v.position) from (
      select ${VARIANT_COLUMNS} from catalog_variant where tenant_id = p.tenant_id and product_id = p.id) v), '[]') as variants
  from catalog_product p where tenant_id = ? and id = ?`;

/** The same read in a locale: each translated field from the translation when it has one, else the row's own. */
function readTranslatedSql(locale: string): string {
  const product = PRODUCT_COLUMNS.replace('title,', `${CATALOG_TRANSLATIONS.field('p', 'product', locale, 'title')} as title,`)
    .replace('handle,', `${CATALOG_TRANSLATIONS.field('p', 'product', locale, 'handle')} as handle,`)
    .replace('description_html,', `${CATALOG_TRANSLATIONS.field('p', 'product', locale, 'description_html')} as description_html,`);
  const variant = VARIANT_COLUMNS.replace('title,', `${CATALOG_TRANSLATIONS.field('cv', 'variant', locale, 'title')} as title,`);
  return `select ${product}, coalesce((
    select json_agg(v order by v.position) from (
      select ${variant} from catalog_variant cv where cv.tenant_id = p.tenant_id and cv.product_id = p.id) v), '[]') as variants
  from catalog_product p where p.tenant_id = ? and p.id = ?`;
}

const VARIANT_FIELDS = VARIANT_COLUMNS.split(',').map((c) => c.trim());

/** The variant columns of `cv` in a read priced in another currency, or with its explicit prices. */
function variantColumnsIn(title: string, money: ReadMoney): { columns: string; join: string; where: string } {
  const priced = money.priced ? priceInSql(money.priced, 'cv') : undefined;
  const own: Record<string, string | undefined> = { title, price: priced?.price, compare_at_price: priced?.compareAt, currency: priced?.currency };
  const columns = VARIANT_FIELDS.map((f) => (own[f] ? `${own[f]} as ${f}` : `cv.${f}`));
  if (money.prices) columns.push(`${explicitPricesJson(money.prices, 'cv')} as prices`);
  return { columns: columns.join(', '), join: priced ? ` ${priced.join}` : '', where: priced ? ` and ${priced.sellable}` : '' };
}

/** A product read in another currency or with explicit prices (in a locale too); the default's texts are the constants above. */
function readSql(locale: string | undefined, money: ReadMoney): string {
  if (!money.priced && !money.prices) return locale ? readTranslatedSql(locale) : READ_PRODUCT_SQL;
  const product = locale
    ? PRODUCT_COLUMNS.replace('title,', `${CATALOG_TRANSLATIONS.field('p', 'product', locale, 'title')} as title,`)
        .replace('handle,', `${CATALOG_TRANSLATIONS.field('p', 'product', locale, 'handle')} as handle,`)
        .replace('description_html,', `${CATALOG_TRANSLATIONS.field('p', 'product', locale, 'description_html')} as description_html,`)
    : PRODUCT_COLUMNS;
  const variant = variantColumnsIn(locale ? CATALOG_TRANSLATIONS.field('cv', 'variant', locale, 'title') : 'cv.title', money);
  return `select ${product}, coalesce((
    select json_agg(v order by v.position) from (
      select ${variant.columns} from catalog_variant cv${variant.join} where cv.tenant_id = p.tenant_id and cv.product_id = p.id${variant.where}) v), '[]') as variants
  from catalog_product p where p.tenant_id = ? and p.id = ?`;
}

/** The read's row as a product with its variants (and their explicit prices, when read). */
function productRead(row: Row, money: ReadMoney): ProductRead {
  const variants = row.variants as Row[];
  const read: ProductRead = { product: toProduct(row), variants: variants.map(toVariant) };
  if (money.prices) read.prices = new Map(variants.map((v) => [v.id as string, v.prices as VariantPrice[]]));
  return read;
}

/**
 * The product a handle names: in a locale, the one whose translation into it has the handle, else
 * the one whose own handle it is; each on its unique index.
 */
const BY_HANDLE = `(select id from catalog_product where tenant_id = ? and handle = ?)`;
const byTranslatedHandle = (locale: string) => `coalesce((select resource_id from catalog_translation
    where tenant_id = ? and resource = 'product' and locale = ${localeLiteral(locale)} and handle = ?), ${BY_HANDLE})`;

export async function readProductByHandle(sql: SqlReader, handle: string, activeOnly: boolean, locale?: string, money: ReadMoney = {}): Promise<ProductRead> {
  const text = readSql(locale, money).replace(/and (p\.)?id = \?$/, (_, alias = '') => `and ${alias}id = ${locale ? byTranslatedHandle(locale) : BY_HANDLE}`);
  const params = locale ? [sql.tenantId, sql.tenantId, handle, sql.tenantId, handle] : [sql.tenantId, sql.tenantId, handle];
  const [row] = await sql.query<Row>(`${text}${activeOnly ? ` and status = 'active'` : ''}`, params, { prepare: true });
  if (!row) throw AppError.notFound('Product', 'PRODUCT_NOT_FOUND');
  return productRead(row, money);
}

export async function readProduct(sql: SqlReader, id: string, activeOnly: boolean, locale?: string, money: ReadMoney = {}): Promise<ProductRead> {
  // Prepared: the same few texts every time (one per locale and currency), and planning them costs more than running them.
  const text = readSql(locale, money);
  const [row] = await sql.query<Row>(`${text}${activeOnly ? ` and status = 'active'` : ''}`, [sql.tenantId, id], { prepare: true });
  if (!row) throw AppError.notFound('Product', 'PRODUCT_NOT_FOUND');
  return productRead(row, money);
}

/** The list's conditions besides the search and the cursor, each with its placeholders' values. */
function conditionsOf(tenantId: string, filter: ProductListFilter): SqlPart[] {
  const out: SqlPart[] = [{ sql: 'tenant_id = ?', params: [tenantId] }];
  const where = (sql: string, ...params: unknown[]) => out.push({ sql, params });
  if (filter.activeOnly) where(`status = 'active'`);
  if (filter.status) where('status = ?', filter.status);
  // In a locale, a handle is the translation's or the product's own (a storefront's link in either).
  if (filter.handle && filter.locale) {
    where(`id in (select id from catalog_product where tenant_id = ? and handle = ?
      union all select resource_id from catalog_translation where tenant_id = ? and resource = 'product' and locale = ? and handle = ?)`, tenantId, filter.handle, tenantId, filter.locale, filter.handle);
  } else if (filter.handle) where('handle = ?', filter.handle);
  if (filter.brand_id) where('brand_id = ?', filter.brand_id);
  if (filter.supplier_id) where('supplier_id = ?', filter.supplier_id);
  if (filter.tag) where('tags @> ?::jsonb', JSON.stringify([filter.tag]));
  for (const c of filter.conditions ?? []) out.push(c);
  return out;
}

/**
 * The statement of a page of products (a page and one row more), newest first by default, in
 * the list's keyset order with or without `q` (decision 0082).
 */
function pageStatement(tenantId: string, page: PageRequest, filter: ProductListFilter, columns: string): SqlPart {
  const resume = keyset(page, SORTS);
  if (byTranslatedTitle(page, filter)) return translatedTitlePage(tenantId, page, filter, columns, resume.params);
  const conditions = conditionsOf(tenantId, filter);
  if (resume.where) conditions.push({ sql: resume.where, params: resume.params });
  const field = page.sort.replace(/^-/, '');
  if (filter.q) {
    // A single word is also a variant's SKU, found whole on the SKU's index.
    const sku = filter.q.trim();
    const ways: Array<{ condition: SqlPart; ids: SqlPart }> = /^\S+$/.test(sku)
      ? [{
          condition: { sql: 'exists (select 1 from catalog_variant s where s.tenant_id = catalog_product.tenant_id and s.product_id = catalog_product.id and s.sku = ?)', params: [sku] },
          ids: { sql: 'select product_id from catalog_variant where tenant_id = ? and sku = ?', params: [tenantId, sku] },
        }]
      : [];
    // In another locale, the words are found in the translations too, stemmed in its language, and in the name of the product's brand there.
    if (filter.locale) ways.push(CATALOG_TRANSLATIONS.matching('catalog_product', 'product', filter.locale, filter.q), brandMatching(tenantId, filter.locale, filter.q));
    const also = ways.length === 0 ? undefined : {
      condition: { sql: ways.map((w) => `(${w.condition.sql})`).join(' or '), params: ways.flatMap((w) => w.condition.params) },
      ids: { sql: ways.map((w) => `(${w.ids.sql})`).join(' union all '), params: ways.flatMap((w) => w.ids.params) },
    };
    return searchPage({ table: 'catalog_product', words: filter.q, columns, conditions, order: { column: SORTS[field].sql, desc: page.sort.startsWith('-') }, limit: page.limit + 1, also });
  }
  return { sql: `select ${columns} from catalog_product where ${conditions.map((c) => `(${c.sql})`).join(' and ')} ${resume.tail}`, params: conditions.flatMap((c) => c.params) };
}

/** A title sort in another locale, without `q`, pages by the title read in that locale (a search pages by the own titles). */
const byTranslatedTitle = (page: PageRequest, filter: ProductListFilter) => Boolean(filter.locale) && !filter.q && page.sort.replace(/^-/, '') === 'title';

/** A page sorted by title in a locale: the translated titles' walk merged with the own titles' (decision 0096). */
function translatedTitlePage(tenantId: string, page: PageRequest, filter: ProductListFilter, columns: string, cursor: unknown[]): SqlPart {
  return translatedSortPage({ table: 'catalog_product', resource: 'product', own: 'title', locale: filter.locale!, columns, conditions: () => conditionsOf(tenantId, filter), tenantId, page, cursor });
}

/** Products whose brand's name in `locale` has the words (stemmed in its language): a condition on the row, and the ids by the brands found. */
function brandMatching(tenantId: string, locale: string, words: string): { condition: SqlPart; ids: SqlPart } {
  return {
    // Probed on the primary key per row, as the product's own translation is (`TranslationTable.matching`).
    condition: {
      sql: `coalesce((select tb.search @@ plainto_tsquery(?::regconfig, qhatu_fold(?)) from catalog_translation tb
              where tb.tenant_id = catalog_product.tenant_id and tb.resource = 'brand' and tb.resource_id = catalog_product.brand_id and tb.locale = ?), false)`,
      params: [textSearchConfig(locale), words, locale],
    },
    ids: { sql: `select id from catalog_product where tenant_id = ? and brand_id in (select catalog_translation_matches('brand', ?, ?))`, params: [tenantId, locale, words] },
  };
}

export async function readProductPage(
  sql: SqlReader,
  page: PageRequest,
  filter: ProductListFilter,
): Promise<{ page: Page<Product>; variants: Map<string, Variant[]>; prices?: Map<string, VariantPrice[]> }> {
  const resume = keyset(page, SORTS);
  const statement = pageStatement(sql.tenantId, page, filter, PRODUCT_COLUMNS.replace(/\s+/g, ' '));
  const rows = await sql.query<Row>(statement.sql, statement.params);
  const field = page.sort.replace(/^-/, '');
  // The title a page in a locale is sorted by, when it is not the product's own.
  const sortKeys = new Map(rows.map((r) => [r.id as string, r.sort_key as string | undefined]));
  const result = resume.finish(rows.map(toProduct), (p) => {
    const value = field === 'title' ? (sortKeys.get(p.id) ?? p.title) : field === 'updated_at' ? p.updatedAt : p.createdAt;
    return value instanceof Date ? value.toISOString() : value;
  });
  const variants = new Map<string, Variant[]>();
  const prices = filter.prices ? new Map<string, VariantPrice[]>() : undefined;
  if (result.items.length > 0) {
    const ids = result.items.map((p) => p.id);
    const plain = !filter.priced && !filter.prices;
    const own = plain ? undefined : variantColumnsIn('cv.title', filter);
    const rows = await sql.query<Row>(
      plain
        ? `select ${VARIANT_COLUMNS} from catalog_variant where tenant_id = ? and product_id = any(?::uuid[]) order by product_id, position`
        : `select ${own!.columns} from catalog_variant cv${own!.join} where cv.tenant_id = ? and cv.product_id = any(?::uuid[])${own!.where} order by cv.product_id, cv.position`,
      [sql.tenantId, uuidArray(ids)],
    );
    for (const v of rows.map(toVariant)) variants.set(v.productId, [...(variants.get(v.productId) ?? []), v]);
    if (prices) for (const r of rows) prices.set(r.id as string, r.prices as VariantPrice[]);
    if (filter.locale) await translatePage(sql, filter.locale, result.items, [...variants.values()].flat());
  }
  return { page: result, variants, prices };
}

/** A page's products and variants in `locale`, after its cursor was made of their own values. */
async function translatePage(sql: SqlReader, locale: string, products: Product[], variants: Variant[]): Promise<void> {
  const rows = await sql.query<{ resource: string; resource_id: string; fields: Record<string, string> }>(
    `select resource, resource_id, fields from catalog_translation where tenant_id = ? and locale = ?
       and ((resource = 'product' and resource_id = any(?::uuid[])) or (resource = 'variant' and resource_id = any(?::uuid[])))`,
    [sql.tenantId, locale, uuidArray(products.map((p) => p.id)), uuidArray(variants.map((v) => v.id))],
  );
  const fields = new Map(rows.map((r) => [`${r.resource}:${r.resource_id}`, r.fields]));
  for (const p of products) {
    const t = fields.get(`product:${p.id}`);
    if (t?.title !== undefined) p.title = t.title;
    if (t?.handle !== undefined) p.handle = t.handle;
    if (t?.description_html !== undefined) p.descriptionHtml = t.description_html;
  }
  for (const v of variants) {
    const t = fields.get(`variant:${v.id}`);
    if (t?.title !== undefined) v.title = t.title;
  }
}

/** An ISO 8601 timestamp in UTC with milliseconds, as `Date.toISOString` writes it. */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

type PriceSql = ReturnType<typeof priceInSql>;

// Without `priced` and `prices` the text is the default currency's, as it always was.
const variantJson = (title: string, priced?: PriceSql, prices?: StoreMoney) => `json_build_object('id', v.id, 'product_id', v.product_id, 'title', ${title}, 'sku', v.sku, 'price', ${priced?.price ?? 'v.price'},
  'compare_at_price', ${priced?.compareAt ?? 'v.compare_at_price'}, 'currency', ${priced?.currency ?? 'v.currency'}, 'weight_grams', v.weight_grams, 'requires_shipping', v.requires_shipping,
  'taxable', v.taxable, 'inventory_quantity', v.inventory_quantity, 'position', v.position, 'custom_fields', v.custom_fields,
  'created_at', ${iso('v.created_at')}, 'updated_at', ${iso('v.updated_at')}${prices ? `, 'prices', ${explicitPricesJson(prices, 'v')}` : ''})`;

const productJson = (title: string, description: string, variantTitle: string, more = '', handle = 'p.handle', money: ReadMoney = {}) => {
  const priced = money.priced ? priceInSql(money.priced, 'v') : undefined;
  const variants = `select json_agg(${variantJson(variantTitle, priced, money.prices)} order by v.position) from catalog_variant v${priced ? ` ${priced.join}` : ''} where v.tenant_id = p.tenant_id and v.product_id = p.id${priced ? ` and ${priced.sellable}` : ''}`;
  return `json_build_object('id', p.id, 'title', ${title}, 'handle', ${handle}, 'description_html', ${description},
  'status', p.status, 'brand_id', p.brand_id, 'supplier_id', p.supplier_id, 'tags', p.tags, 'images', p.images,
  'variants', coalesce((${variants}), '[]'),
  'custom_fields', p.custom_fields, 'created_at', ${iso('p.created_at')}, 'updated_at', ${iso('p.updated_at')}${more})`;
};

const PRODUCT_JSON = productJson('p.title', 'p.description_html', 'v.title');

/** A page's JSON in a locale: the translated texts, and the title the cursor of a `title` sort is made of. */
const translatedJson = (locale: string, sortKey: string, money: ReadMoney) =>
  productJson(
    CATALOG_TRANSLATIONS.field('p', 'product', locale, 'title'),
    CATALOG_TRANSLATIONS.field('p', 'product', locale, 'description_html'),
    CATALOG_TRANSLATIONS.field('v', 'variant', locale, 'title'),
    `, '${SORT_KEY}', ${sortKey}`,
    CATALOG_TRANSLATIONS.field('p', 'product', locale, 'handle'),
    money,
  );
const SORT_KEY = '_sort_key';

/** A product as the API answers it (`ProductOut`), custom fields as stored until presented. */
export interface ProductJson {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  custom_fields: unknown;
  variants: Array<{ custom_fields: unknown }>;
  [field: string]: unknown;
}

/**
 * A page of products as the list answers it, made by PostgreSQL in one round trip (the page,
 * its variants and the JSON of both): no entities, no mapping of rows, no check of the answer
 * against its schema on the way out (the catalog's tests hold it to `ProductOut`).
 */
export async function readProductPageJson(sql: SqlReader, page: PageRequest, filter: ProductListFilter, versioned?: VersionedRead): Promise<PageJson> {
  const desc = page.sort.startsWith('-');
  const field = page.sort.replace(/^-/, '');
  const statement = pageStatement(sql.tenantId, page, filter, 'tenant_id, id, title, handle, description_html, status, brand_id, supplier_id, tags, images, custom_fields, created_at, updated_at');
  // A title sort in a locale pages by the title it sorted by: the locale's (`sort_key`), or the own one in a search.
  const order = byTranslatedTitle(page, filter) ? 'p.sort_key' : `p.${SORTS[field].sql}`;
  const json = (as: string) => `select coalesce(json_agg(${filter.locale ? translatedJson(filter.locale, order === 'p.sort_key' ? order : 'p.title', filter) : filter.priced || filter.prices ? productJson('p.title', 'p.description_html', 'v.title', '', 'p.handle', filter) : PRODUCT_JSON} order by ${order} ${desc ? 'desc' : 'asc'}, p.id ${desc ? 'desc' : 'asc'}), '[]')::text${as} from (${statement.sql}) p`;
  // With the catalog's version read in the same statement (one snapshot), and the page left unwritten when that is the version of the answer kept.
  // Prepared unless searched (a search's text varies with its words): planning the page's JSON costs more than checking a version.
  const [row] = versioned
    ? await sql.query<{ items: string | null; version: string }>(
        `select c.version, case when c.version = ? then null else (${json('')}) end as items from (select ${CATALOG_VERSION_SQL} as version) c`,
        [versioned.unless ?? null, ...statement.params, sql.tenantId],
        { prepare: !filter.q },
      )
    : await sql.query<{ items: string; version?: string }>(json(' as items'), statement.params, { prepare: !filter.q });
  if (row.items === null) return { unchanged: true, version: row.version! };
  const rows = JSON.parse(row.items) as ProductJson[];
  const hasNext = rows.length > page.limit;
  const items = hasNext ? rows.slice(0, page.limit) : rows;
  const last = items[items.length - 1];
  const cursor = hasNext ? encodeCursor({ s: page.sort, v: field === 'title' && filter.locale ? last[SORT_KEY] : last[field], i: last.id }) : null;
  if (filter.locale) for (const item of items) delete item[SORT_KEY];
  return { items, pagination: { cursor, has_next: hasNext, limit: page.limit }, version: row.version };
}

/** A page read with the store's catalog version: `unless` is the version of the answer the caller keeps. */
export interface VersionedRead {
  unless?: string;
}

/** A page as the list answers it; read versioned, the catalog version it was read at, or only that when it is the version the caller keeps. */
export type PageJson =
  | { unchanged?: false; items: ProductJson[]; pagination: Page<unknown>['pagination']; version?: string }
  | { unchanged: true; version: string };

/**
 * The store's catalog version (moved in the transaction of every change of what a product answer
 * shows), as the carts' kept facts read it: '0' before its first change.
 */
const CATALOG_VERSION_SQL = `coalesce(${SELLABLE_FACTS.versionSql('?')}, '0')`;
