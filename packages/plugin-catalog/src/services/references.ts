import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, escapeLike, slugify, type Database } from '@qhatu/core';
import { Brand } from '../entities/brand.js';
import { Collection } from '../entities/collection.js';
import { Product } from '../entities/product.js';
import { Supplier } from '../entities/supplier.js';
import { Variant } from '../entities/variant.js';

/** The product of a sub-resource's path: 404 PRODUCT_NOT_FOUND when the tenant has none with this id. */
export async function requireProduct(em: EntityManager, id: string): Promise<void> {
  if (!(await em.count(Product, { id }))) throw AppError.notFound('Product', 'PRODUCT_NOT_FOUND');
}

/** A variant named in a body must be one of this product's: else 422 VARIANT_NOT_FOUND. */
export async function requireVariantOf(em: EntityManager, productId: string, variantId: string | null | undefined): Promise<void> {
  if (!variantId || (await em.count(Variant, { id: variantId, productId }))) return;
  throw AppError.unprocessable('VARIANT_NOT_FOUND', `Variant ${variantId} is not a variant of this product`, [
    { path: 'body.variant_id', message: 'is not a variant of this product' },
  ]);
}

export async function requireBrand(em: EntityManager, id: string | null | undefined): Promise<void> {
  if (!id || (await em.count(Brand, { id }))) return;
  throw AppError.unprocessable('BRAND_NOT_FOUND', `Brand ${id} does not exist`, [{ path: 'body.brand_id', message: 'is not a brand of this store' }]);
}

export async function requireSupplier(em: EntityManager, id: string | null | undefined): Promise<void> {
  if (!id || (await em.count(Supplier, { id }))) return;
  throw AppError.unprocessable('SUPPLIER_NOT_FOUND', `Supplier ${id} does not exist`, [
    { path: 'body.supplier_id', message: 'is not a supplier of this store' },
  ]);
}

type Slugged = typeof Brand | typeof Collection;

/**
 * The slug to store. On create (`current` absent) an empty or absent slug is made from `name`;
 * on replace an absent slug keeps the current one and an empty one is made anew. A slug given
 * explicitly must be free (409); a made one gets `-2`, `-3`, ... when taken.
 */
export async function resolveSlug(
  em: EntityManager,
  entity: Slugged,
  requested: string | null | undefined,
  name: string,
  current?: { id: string; slug: string },
): Promise<string> {
  if (requested === undefined && current) return current.slug;
  if (requested) {
    if (requested !== current?.slug) await assertSlugFree(em, entity, requested, current?.id);
    return requested;
  }
  return freeSlug(em, entity, slugify(name), current?.id);
}

/**
 * A slug for `base` that no other row of the tenant has: `base`, else `base-2`, `base-3`, ...
 * (one statement). A race between two writes ends at the unique index: see `retryTaken`.
 */
async function freeSlug(em: EntityManager, entity: Slugged, base: string, exceptId?: string): Promise<string> {
  const where: Record<string, unknown> = { $or: [{ slug: base }, { slug: { $like: `${escapeLike(base)}-%` } }] };
  if (exceptId) where.id = { $ne: exceptId };
  const rows = (await em.find(entity as never, where as never, { fields: ['slug'] as never })) as Array<{ slug: string }>;
  const taken = new Set(rows.map((r) => r.slug));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

/** An explicit slug must be free (409 CONFLICT naming the field). */
async function assertSlugFree(em: EntityManager, entity: Slugged, slug: string, exceptId?: string): Promise<void> {
  const where: Record<string, unknown> = { slug };
  if (exceptId) where.id = { $ne: exceptId };
  if (await em.count(entity as never, where as never)) {
    throw taken('slug', slug);
  }
}

/**
 * Runs `write` (a whole transaction) again when another row took the slug or handle between its
 * look-up and the write, caught by the unique index `index`: a value made from a name moves on to
 * the next free number; one the client sent is the 409 naming its field.
 */
export async function retryTaken<T>(index: string, field: { name: 'slug' | 'handle'; requested: string | null | undefined }, write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException) || !String(error.message).includes(index)) throw error;
      if (field.requested) throw taken(field.name, field.requested);
      // Each retry reads the handles committed since; many creators of one title need as many rounds.
      if (attempt === 20) throw error;
    }
  }
}

/** 409 CONFLICT naming the body field whose value another row has. */
export function taken(field: 'slug' | 'handle', value: string): AppError {
  return AppError.conflict(`The ${field} "${value}" is taken`, 'CONFLICT', [{ path: `body.${field}`, message: 'is taken' }]);
}

/** A SKU the write wants, with the body field that gave it. */
export interface WantedSku {
  path: string;
  sku: string | null | undefined;
}

/**
 * Runs a write that gives variants SKUs; when another variant of the store has one of them
 * (the unique index says so, also for a SKU taken at the same moment), answers the precise 409
 * naming the field, as a taken handle does.
 */
export async function refuseTakenSkus<T>(db: Database, wanted: WantedSku[], write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException) || !String(error.message).includes('catalog_variant_sku')) throw error;
    const skus = wanted.flatMap((w) => (w.sku ? [w.sku] : []));
    const rows = await db.read((sql) => sql.query<{ sku: string }>('select sku from catalog_variant where sku = any($1)', [skus]));
    const takenSkus = new Set(rows.map((r) => r.sku));
    const hit = wanted.find((w) => w.sku && takenSkus.has(w.sku)) ?? wanted.find((w) => w.sku);
    if (!hit) throw error;
    throw AppError.conflict(`The SKU "${hit.sku}" is taken by another variant`, 'CONFLICT', [{ path: hit.path, message: 'is taken' }]);
  }
}
