import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, CustomFields, Database, escapeLike, slugify, Tenant, TenantContext, type CustomFieldFilter, type CustomFieldValues, type Page, type PageRequest, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Product, type ProductImage, type ProductStatus } from '../entities/product.js';
import { Variant } from '../entities/variant.js';
import type { ProductInput, ProductPatch, VariantInput, VariantPatch } from '../schemas/product.js';
import { CollectionProducts } from './collection-products.js';
import { CatalogMedia, type MediaUser } from './media.js';
import { readProduct, readProductByHandle, readProductPage, readProductPageJson, type PageJson, type VersionedRead, type ReadMoney } from './product-reads.js';
import { requireBrand, requireSupplier, refuseTakenSkus, retryTaken, taken } from './references.js';
import { assertStoreCurrency } from './store-currency.js';
import { checkPrices, explicitPrices, moneyOf, pricesAsSent, replacePrices, sellsInOthers, type PricedIn, type VariantPrice, type VariantPriceInput } from './variant-prices.js';

export interface ProductView {
  product: Product;
  variants: Variant[];
  /** Admin reads: each variant's explicit prices in the store's other currencies, by variant id. */
  prices?: ReadonlyMap<string, VariantPrice[]>;
}

/** A variant as staff wrote it, with its explicit prices. */
export interface VariantView {
  variant: Variant;
  prices: VariantPrice[];
}

export interface ProductFilter {
  status?: ProductStatus;
  handle?: string;
  brand_id?: string;
  supplier_id?: string;
  tag?: string;
  q?: string;
  /** Storefront callers see active products only. */
  activeOnly?: boolean;
  /** Equal to these values of the product's indexed custom fields. */
  customFields?: CustomFieldFilter[];
  /** With a variant whose indexed custom fields have these values. */
  variantFields?: CustomFieldFilter[];
  /** A locale other than the store's default: texts translated field by field, `q` found in the translations too. */
  locale?: string;
  /** A currency other than the store's default: prices in it (explicit, else derived), variants without one left out. */
  priced?: PricedIn;
  /** Admin reads: each variant's explicit prices (`prices`); none read in a store of one currency. */
  withPrices?: boolean;
}

type ReadFilter = Pick<ProductFilter, 'activeOnly' | 'locale' | 'priced' | 'withPrices'>;

/** What a read adds for money: its currency, and the store's currencies when it shows explicit prices. */
function readMoney(filter: ReadFilter): ReadMoney {
  const money = TenantContext.principal()?.money;
  return { priced: filter.priced, prices: filter.withPrices && sellsInOthers(money) ? money : undefined };
}

/** A read's view, with no explicit prices to show when the store sells in one currency. */
function withPrices<T extends { prices?: ReadonlyMap<string, VariantPrice[]> }>(view: T, filter: ReadFilter): T {
  return filter.withPrices && !view.prices ? { ...view, prices: new Map() } : view;
}

export const PRODUCT_EVENTS = ['products.product.created', 'products.product.updated', 'products.product.deleted'] as const;

/** Products and their variants: the only place that writes them. */
/**
 * Who keeps variants' stock. The catalog keeps `inventory_quantity` itself unless a plugin (the
 * inventory's warehouses) registers `STOCK_KEEPER`; the catalog then refuses writes of it and says
 * where stock is changed instead.
 */
export const STOCK_KEEPER = Symbol.for('qhatu.catalog.stock-keeper');
export interface StockKeeper {
  /** How stock is changed instead, for the error message; null when the catalog keeps it. */
  readonly adjustWith: string | null;
}

@injectable()
export class Products implements MediaUser {
  constructor(
    @inject(STOCK_KEEPER) private readonly stock: StockKeeper,
    @inject(Database) private readonly db: Database,
    @inject(CatalogMedia) private readonly media: CatalogMedia,
    @inject(CollectionProducts) private readonly collections: CollectionProducts,
    @inject(CustomFields) private readonly fields: CustomFields,
  ) {}

  /**
   * A product with its variants. A handle made from the title is numbered past the taken ones;
   * when another product takes it between the look-up and the insert, the next one is tried.
   */
  async create(input: ProductInput): Promise<ProductView> {
    this.refuseStock(input.variants.map((v, i) => [`body.variants.${i}.inventory_quantity`, v.inventory_quantity]));
    const skus = input.variants.map((v, i) => ({ path: `body.variants.${i}.sku`, sku: v.sku }));
    const customFields = {
      product: this.fields.create('product', input.custom_fields),
      variants: input.variants.map((v, i) => this.fields.create('variant', v.custom_fields, { path: `body.variants.${i}.custom_fields` })),
    };
    return refuseTakenSkus(this.db, skus, () => retryTaken('catalog_product_handle', { name: 'handle', requested: input.handle }, () => this.insert(input, customFields)));
  }

  private async insert(input: ProductInput, customFields: { product: CustomFieldValues; variants: CustomFieldValues[] }): Promise<ProductView> {
    return this.db.tenant(async (tx) => {
      const { em } = tx;
      const tenant = await em.findOneOrFail(Tenant, { id: tx.tenantId });
      assertStoreCurrency(tenant.currency, input.variants.map((v, i) => [`body.variants.${i}.currency`, v.currency]));
      const handle = input.handle ?? (await this.freeHandle(em, slugify(input.title)));
      if (input.handle && (await em.count(Product, { handle }))) throw taken('handle', handle);
      await requireBrand(em, input.brand_id);
      await requireSupplier(em, input.supplier_id);
      const at = tx.now();
      const product = em.create(Product, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        title: input.title,
        handle,
        descriptionHtml: input.description_html ?? null,
        status: input.status ?? 'active',
        brandId: input.brand_id ?? null,
        supplierId: input.supplier_id ?? null,
        tags: dedupe(input.tags ?? []),
        images: await this.images(tx, input.images ?? []),
        customFields: customFields.product,
        createdAt: at,
        updatedAt: at,
      });
      this.assertUniqueSkus(input.variants.map((v) => v.sku));
      const variants = input.variants.map((v, position) => this.newVariant(tx, product, v, position, tenant.currency, customFields.variants[position]));
      const sent = await this.sentPrices(tx, variants.map((v, i) => [v.id, input.variants[i].prices, `body.variants.${i}.prices`]));
      tx.publish('products.product.created', productEvent(product, variants));
      await em.flush();
      await replacePrices(tx, sent);
      return { product, variants, prices: pricesAsSent(sent) };
    });
  }

  /** The explicit prices sent for each variant (none sent: not there), checked against the store's currencies. */
  private async sentPrices(tx: Tx, given: Array<[variantId: string, prices: VariantPriceInput[] | undefined, path: string]>): Promise<Map<string, VariantPriceInput[]>> {
    const sent = new Map<string, VariantPriceInput[]>();
    if (given.every(([, prices]) => prices === undefined)) return sent;
    const money = await moneyOf(tx);
    for (const [id, prices, path] of given) {
      if (prices === undefined) continue;
      checkPrices(money, prices, path);
      sent.set(id, prices);
    }
    return sent;
  }

  async get(id: string, filter: ReadFilter = {}): Promise<ProductView> {
    // One query: BEGIN, the tenant, the product with its variants (translated in another locale, priced in another currency) and COMMIT in one round trip.
    return withPrices(await this.db.readOneMayLag((sql) => readProduct(sql, id, Boolean(filter.activeOnly), filter.locale, readMoney(filter))), filter);
  }

  /** The product a storefront link names: in a locale, by its handle there or its own (decision 0096). */
  async getByHandle(handle: string, filter: ReadFilter = {}): Promise<ProductView> {
    return withPrices(await this.db.readOneMayLag((sql) => readProductByHandle(sql, handle, Boolean(filter.activeOnly), filter.locale, readMoney(filter))), filter);
  }

  async list(page: PageRequest, filter: ProductFilter): Promise<{ items: ProductView[]; page: Page<Product> }> {
    if (filter.activeOnly && filter.status && filter.status !== 'active') {
      return { items: [], page: { items: [], cursorOf: () => '', pagination: { cursor: null, has_next: false, limit: page.limit } } };
    }
    return this.db.readMayLag(async (sql) => {
      const { page: result, variants, prices } = await readProductPage(sql, page, { ...filter, ...readMoney(filter), conditions: this.customFieldConditions(filter) });
      return { items: result.items.map((product) => withPrices({ product, variants: variants.get(product.id) ?? [], prices }, filter)), page: result };
    });
  }

  /**
   * The same page as the list answers it, JSON made by PostgreSQL in one round trip (the REST list's
   * hot path). `versioned`: with the catalog version it was read at, and only that version when it is
   * the one of the answer the caller keeps (`unless`), in the same one statement.
   */
  async listAnswer(page: PageRequest, filter: ProductFilter, versioned?: VersionedRead): Promise<PageJson> {
    if (filter.activeOnly && filter.status && filter.status !== 'active') return { items: [], pagination: { cursor: null, has_next: false, limit: page.limit } };
    // Explicit prices ride in each variant's JSON (a store of one currency has none: the caller adds `[]`).
    return this.db.readOneMayLag((sql) => readProductPageJson(sql, page, { ...filter, ...readMoney(filter), conditions: this.customFieldConditions(filter) }, versioned));
  }

  private customFieldConditions(filter: ProductFilter) {
    // Custom-field filters on their indexed columns: the product's own, and a variant's of the product.
    return [
      ...(filter.customFields ?? []).map((f) => this.fields.condition(f)),
      ...(filter.variantFields ?? []).map((f) => {
        const c = this.fields.condition(f, 'v');
        return { sql: `exists (select 1 from catalog_variant v where v.tenant_id = catalog_product.tenant_id and v.product_id = catalog_product.id and ${c.sql})`, params: c.params };
      }),
    ];
  }

  async update(id: string, patch: ProductPatch): Promise<ProductView> {
    const customFields = patch.custom_fields === undefined ? undefined : this.fields.changes('product', patch.custom_fields);
    // A handle another product takes at the same moment is the same precise 409.
    return retryTaken('catalog_product_handle', { name: 'handle', requested: patch.handle }, () =>
      this.db.tenant(async (tx) => {
        const { em } = tx;
        const product = await this.lock(em, id);
        if (patch.handle && patch.handle !== product.handle && (await em.count(Product, { handle: patch.handle }))) throw taken('handle', patch.handle);
        if (patch.brand_id && patch.brand_id !== product.brandId) await requireBrand(em, patch.brand_id);
        if (patch.supplier_id && patch.supplier_id !== product.supplierId) await requireSupplier(em, patch.supplier_id);
        if (patch.title !== undefined) product.title = patch.title;
        if (patch.handle !== undefined) product.handle = patch.handle;
        if (patch.description_html !== undefined) product.descriptionHtml = patch.description_html;
        if (patch.status !== undefined) product.status = patch.status;
        if (patch.brand_id !== undefined) product.brandId = patch.brand_id;
        if (patch.supplier_id !== undefined) product.supplierId = patch.supplier_id;
        if (patch.tags !== undefined) product.tags = dedupe(patch.tags);
        if (patch.images !== undefined) product.images = await this.images(tx, patch.images);
        if (customFields) product.customFields = { ...product.customFields, ...customFields };
        product.updatedAt = tx.now();
        const variants = await em.find(Variant, { productId: id }, { orderBy: { position: 'asc' } });
        tx.publish('products.product.updated', productEvent(product, variants));
        await em.flush();
        return { product, variants, prices: await explicitPrices(tx, variants.map((v) => v.id), TenantContext.principal()?.money) };
      }),
    );
  }

  /** Its variants, downloads and metafields go with it (foreign keys); it leaves its collections. */
  async remove(id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const product = await this.lock(tx.em, id);
      await this.collections.forgetProduct(tx, id);
      tx.em.remove(product);
      tx.publish('products.product.deleted', { id, deleted_at: tx.now().toISOString() });
      await tx.em.flush();
    });
  }

  async addVariant(productId: string, input: VariantInput): Promise<VariantView> {
    this.refuseStock([['body.inventory_quantity', input.inventory_quantity]]);
    const customFields = this.fields.create('variant', input.custom_fields);
    return refuseTakenSkus(this.db, [{ path: 'body.sku', sku: input.sku }], () => this.db.tenant(async (tx) => {
      const { em } = tx;
      const product = await this.lock(em, productId);
      const existing = await em.find(Variant, { productId }, { orderBy: { position: 'asc' } });
      if (existing.length >= 100) throw AppError.unprocessable('VARIANT_LIMIT', 'A product has at most 100 variants');
      const tenant = await em.findOneOrFail(Tenant, { id: tx.tenantId });
      assertStoreCurrency(tenant.currency, [['body.currency', input.currency]]);
      const position = existing.reduce((max, v) => Math.max(max, v.position + 1), 0);
      const variant = this.newVariant(tx, product, input, position, tenant.currency, customFields);
      const sent = await this.sentPrices(tx, [[variant.id, input.prices, 'body.prices']]);
      product.updatedAt = tx.now();
      tx.publish('products.product.updated', productEvent(product, [...existing, variant]));
      await em.flush();
      await replacePrices(tx, sent);
      return { variant, prices: pricesAsSent(sent).get(variant.id) ?? [] };
    }));
  }

  /** Changes the fields sent; `prices`, when sent, replaces the variant's explicit prices. */
  async updateVariant(productId: string, variantId: string, patch: VariantPatch): Promise<VariantView> {
    this.refuseStock([['body.inventory_quantity', patch.inventory_quantity]]);
    const customFields = patch.custom_fields === undefined ? undefined : this.fields.changes('variant', patch.custom_fields);
    return refuseTakenSkus(this.db, [{ path: 'body.sku', sku: patch.sku }], () => this.db.tenant(async (tx) => {
      const { em } = tx;
      const product = await this.lock(em, productId);
      const variants = await em.find(Variant, { productId }, { orderBy: { position: 'asc' } });
      const variant = variants.find((v) => v.id === variantId);
      if (!variant) throw AppError.notFound('Variant', 'VARIANT_NOT_FOUND');
      // A variant stored in another currency before the rule is left as it is until its currency is sent.
      if (patch.currency !== undefined) assertStoreCurrency((await em.findOneOrFail(Tenant, { id: tx.tenantId })).currency, [['body.currency', patch.currency]]);
      const sent = await this.sentPrices(tx, [[variant.id, patch.prices, 'body.prices']]);
      assignVariant(variant, patch);
      if (customFields) variant.customFields = { ...variant.customFields, ...customFields };
      const at = tx.now();
      variant.updatedAt = at;
      product.updatedAt = at;
      tx.publish('products.product.updated', productEvent(product, variants));
      await em.flush();
      await replacePrices(tx, sent);
      const prices = sent.size > 0 ? pricesAsSent(sent) : await explicitPrices(tx, [variant.id], TenantContext.principal()?.money);
      return { variant, prices: prices.get(variant.id) ?? [] };
    }));
  }

  async removeVariant(productId: string, variantId: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const { em } = tx;
      const product = await this.lock(em, productId);
      const variants = await em.find(Variant, { productId }, { orderBy: { position: 'asc' } });
      const variant = variants.find((v) => v.id === variantId);
      if (!variant) throw AppError.notFound('Variant', 'VARIANT_NOT_FOUND');
      if (variants.length === 1) throw AppError.conflict('A product needs at least one variant; delete the product instead');
      em.remove(variant);
      product.updatedAt = tx.now();
      tx.publish('products.product.updated', productEvent(product, variants.filter((v) => v !== variant)));
      await em.flush();
    });
  }

  /** Variants of many products in one statement, grouped by product. */
  async variantsOf(em: EntityManager, productIds: string[]): Promise<Map<string, Variant[]>> {
    const byProduct = new Map<string, Variant[]>();
    if (productIds.length === 0) return byProduct;
    const rows = await em.find(Variant, { productId: { $in: productIds } }, { orderBy: { productId: 'asc', position: 'asc' } });
    for (const v of rows) byProduct.set(v.productId, [...(byProduct.get(v.productId) ?? []), v]);
    return byProduct;
  }

  private async lock(em: EntityManager, id: string): Promise<Product> {
    const product = await em.findOne(Product, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!product) throw AppError.notFound('Product', 'PRODUCT_NOT_FOUND');
    return product;
  }

  /** With a stock keeper installed, `inventory_quantity` is its to set: each one sent is named. */
  private refuseStock(given: Array<[path: string, value: number | undefined]>): void {
    if (!this.stock.adjustWith) return;
    const sent = given.filter(([, value]) => value !== undefined);
    if (sent.length === 0) return;
    throw AppError.validation(`Stock is kept by warehouses in this store: ${this.stock.adjustWith}`, sent.map(([path]) => ({ path, message: 'is read-only here: it is the stock available over the active warehouses' })));
  }

  private newVariant(tx: Tx, product: Product, v: VariantInput, position: number, currency: string, customFields: CustomFieldValues): Variant {
    return tx.em.create(Variant, {
      id: randomUUID(),
      tenantId: tx.tenantId,
      productId: product.id,
      title: v.title,
      sku: v.sku ?? null,
      price: v.price,
      compareAtPrice: v.compare_at_price ?? null,
      currency: v.currency ?? currency,
      weightGrams: v.weight_grams ?? null,
      requiresShipping: v.requires_shipping ?? true,
      taxable: v.taxable ?? true,
      inventoryQuantity: v.inventory_quantity ?? 0,
      position,
      customFields,
      createdAt: tx.now(),
      updatedAt: tx.now(),
    });
  }

  private assertUniqueSkus(skus: Array<string | null | undefined>): void {
    const seen = new Set<string>();
    for (const [i, sku] of skus.entries()) {
      if (!sku) continue;
      if (seen.has(sku)) {
        throw AppError.validation(`The SKU "${sku}" is given twice`, [{ path: `body.variants.${i}.sku`, message: 'is repeated' }]);
      }
      seen.add(sku);
    }
  }

  private async freeHandle(em: EntityManager, base: string): Promise<string> {
    const rows = await em.find(
      Product,
      { $or: [{ handle: base }, { handle: { $like: `${escapeLike(base)}-%` } }] },
      { fields: ['handle'] },
    );
    const taken = new Set(rows.map((r) => r.handle));
    if (!taken.has(base)) return base;
    for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
  }

  private async images(tx: Tx, input: NonNullable<ProductInput['images']>): Promise<ProductImage[]> {
    const refs = input.flatMap((image, i) => (image.media_id ? [{ mediaId: image.media_id, path: `body.images.${i}.media_id` }] : []));
    const urls = await this.media.urls(tx, refs);
    return input.map((image, position) => ({
      id: randomUUID(),
      media_id: image.media_id ?? null,
      url: image.media_id ? urls.get(image.media_id)! : image.url!,
      alt_text: image.alt_text ?? null,
      position,
    }));
  }

  /** A media file is being deleted: the images made from it leave their products. */
  async detachMedia(tx: Tx, mediaId: string): Promise<void> {
    const products = await tx.em.find(Product, { images: { $contains: [{ media_id: mediaId }] } } as never);
    if (products.length === 0) return;
    const variants = await this.variantsOf(tx.em, products.map((p) => p.id));
    for (const product of products) {
      product.images = product.images.filter((i) => i.media_id !== mediaId).map((image, position) => ({ ...image, position }));
      product.updatedAt = tx.now();
      tx.publish('products.product.updated', productEvent(product, variants.get(product.id) ?? []));
    }
    await tx.em.flush();
  }
}

function assignVariant(variant: Variant, patch: VariantPatch): void {
  if (patch.title !== undefined) variant.title = patch.title;
  if (patch.sku !== undefined) variant.sku = patch.sku;
  if (patch.price !== undefined) variant.price = patch.price;
  if (patch.compare_at_price !== undefined) variant.compareAtPrice = patch.compare_at_price;
  if (patch.currency !== undefined) variant.currency = patch.currency;
  if (patch.weight_grams !== undefined) variant.weightGrams = patch.weight_grams;
  if (patch.requires_shipping !== undefined) variant.requiresShipping = patch.requires_shipping;
  if (patch.taxable !== undefined) variant.taxable = patch.taxable;
  if (patch.inventory_quantity !== undefined) variant.inventoryQuantity = patch.inventory_quantity;
}

function dedupe(tags: string[]): string[] {
  return [...new Set(tags)];
}

/** The specification's `products.product.updated` data: the first variant speaks for the product. */
export function productEvent(product: Product, variants: Variant[]) {
  const first = [...variants].sort((a, b) => a.position - b.position)[0];
  return {
    id: product.id,
    sku: first?.sku ?? null,
    name: product.title,
    price: first?.price ?? null,
    stock: variants.reduce((sum, v) => sum + v.inventoryQuantity, 0),
    updated_at: product.updatedAt.toISOString(),
  };
}
