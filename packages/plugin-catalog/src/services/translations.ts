import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppError, Database, translated, TranslationTable, type Translation, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { TRANSLATED_FIELDS, type TranslatedResource } from '../schemas/translation.js';

/** The catalog's translation table (migration 0008). */
export const CATALOG_TRANSLATIONS = new TranslationTable('catalog_translation');

export const TRANSLATION_EVENTS = ['products.translation.updated', 'products.translation.deleted'] as const;

/** A translated resource: its id, and for a variant its product's. */
export interface TranslatedRef {
  id: string;
  productId?: string;
}

const LOOKUPS: Record<TranslatedResource, { sql: string; missing: () => AppError }> = {
  product: { sql: 'select 1 from catalog_product where tenant_id = ? and id = ?', missing: () => AppError.notFound('Product', 'PRODUCT_NOT_FOUND') },
  variant: { sql: 'select 1 from catalog_variant where tenant_id = ? and id = ? and product_id = ?', missing: () => AppError.notFound('Variant', 'VARIANT_NOT_FOUND') },
  collection: { sql: 'select 1 from catalog_collection where tenant_id = ? and id = ?', missing: () => AppError.notFound('Collection', 'COLLECTION_NOT_FOUND') },
  brand: { sql: 'select 1 from catalog_brand where tenant_id = ? and id = ?', missing: () => AppError.notFound('Brand', 'BRAND_NOT_FOUND') },
};

/** The field of a resource's own table a translated handle stands for, and the table that holds its own. */
const KEYS: Partial<Record<TranslatedResource, { field: 'handle' | 'slug'; code: string; table: string; noun: string }>> = {
  product: { field: 'handle', code: 'HANDLE_TAKEN', table: 'catalog_product', noun: 'product' },
  collection: { field: 'slug', code: 'SLUG_TAKEN', table: 'catalog_collection', noun: 'collection' },
};

/** What a translation is found by in its locale's search: a brand by its name, as in the default locale; the others by every field. */
const SEARCHED: Partial<Record<TranslatedResource, string[]>> = { brand: ['name'] };

/** Translations of the catalog's texts into the store's other locales (decision 0089): the only writer of them. */
@injectable()
export class CatalogTranslations {
  constructor(@inject(Database) private readonly db: Database) {}

  /** Replaces the resource's translation into `locale`; its words become findable in that locale's language. */
  async put(resource: TranslatedResource, ref: TranslatedRef, locale: string, fields: Record<string, string | undefined>): Promise<Translation> {
    const key = KEYS[resource];
    const handle = key ? fields[key.field] : undefined;
    try {
      return await this.db.tenant(async (tx) => {
        await this.find(tx, resource, ref);
        await TranslationTable.assertTranslatable(tx, locale);
        if (key && handle) await this.assertHandleFree(tx, resource, ref.id, locale, handle);
        const kept = Object.fromEntries(Object.keys(TRANSLATED_FIELDS[resource]).filter((k) => typeof fields[k] === 'string').map((k) => [k, fields[k] as string]));
        const words = (SEARCHED[resource] ?? Object.keys(kept)).map((k) => kept[k] ?? '').join(' ');
        const translation = await CATALOG_TRANSLATIONS.put(tx, resource, ref.id, locale, kept, words);
        tx.publish('products.translation.updated', { resource, resource_id: ref.id, locale, fields: Object.keys(kept) });
        await tx.em.flush();
        return translation;
      });
    } catch (error) {
      // Another translation took the handle between the check and the write: the same precise 409.
      if (key && handle && error instanceof UniqueConstraintViolationException && String(error.message).includes('catalog_translation_handle')) {
        throw handleTaken(resource, locale, handle);
      }
      throw error;
    }
  }

  /**
   * A translated handle names one resource in its locale: no other translation into the locale has
   * it, nor another resource as its own (which the locale's look-up would find second).
   */
  private async assertHandleFree(tx: Tx, resource: TranslatedResource, id: string, locale: string, handle: string): Promise<void> {
    const key = KEYS[resource]!;
    const rows = await tx.query(
      `select 1 from catalog_translation where tenant_id = ? and resource = ? and locale = ? and handle = ? and resource_id <> ?
       union all select 1 from ${key.table} where tenant_id = ? and ${key.field} = ? and id <> ?`,
      [tx.tenantId, resource, locale, handle, id, tx.tenantId, handle, id],
    );
    if (rows.length > 0) throw handleTaken(resource, locale, handle);
  }

  async list(resource: TranslatedResource, ref: TranslatedRef): Promise<Translation[]> {
    return this.db.tenant(async (tx) => {
      await this.find(tx, resource, ref);
      return CATALOG_TRANSLATIONS.list(tx, resource, ref.id);
    });
  }

  /** Removes the translation into `locale`: the resource reads in the default locale there again. */
  async remove(resource: TranslatedResource, ref: TranslatedRef, locale: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      await this.find(tx, resource, ref);
      if (!(await CATALOG_TRANSLATIONS.remove(tx, resource, ref.id, locale))) throw AppError.notFound('Translation', 'TRANSLATION_NOT_FOUND');
      tx.publish('products.translation.deleted', { resource, resource_id: ref.id, locale });
      await tx.em.flush();
    });
  }

  /** The translated fields of these resources in `locale`, by id: for the reads that are not made in SQL of their own. */
  async fieldsOf(resource: TranslatedResource, ids: readonly string[], locale: string): Promise<Map<string, Record<string, string>>> {
    if (ids.length === 0) return new Map();
    return this.db.readOneMayLag((sql) => CATALOG_TRANSLATIONS.fieldsOf(sql, resource, ids, locale));
  }

  /** Each answer with its translated fields over its own, field by field. */
  async translate<T extends { id: string }>(resource: TranslatedResource, answers: T[], locale: string | undefined, key: (answer: T) => string = (a) => a.id): Promise<T[]> {
    if (!locale) return answers;
    const fields = await this.fieldsOf(resource, answers.map(key), locale);
    const names = Object.keys(TRANSLATED_FIELDS[resource]) as Array<keyof T & string>;
    return answers.map((a) => translated(a, fields.get(key(a)), names));
  }

  /** 404 unless the resource is the store's (and a variant its product's). */
  private async find(tx: Tx, resource: TranslatedResource, ref: TranslatedRef): Promise<void> {
    const lookup = LOOKUPS[resource];
    const params = resource === 'variant' ? [tx.tenantId, ref.id, ref.productId] : [tx.tenantId, ref.id];
    if ((await tx.query(lookup.sql, params)).length === 0) throw lookup.missing();
  }
}

/** 409 HANDLE_TAKEN (a collection's SLUG_TAKEN): another product or collection of the store has it in the locale. */
function handleTaken(resource: TranslatedResource, locale: string, handle: string): AppError {
  const key = KEYS[resource]!;
  return AppError.conflict(`The ${key.field} "${handle}" is taken by another ${key.noun} in ${locale}`, key.code, [
    { path: `body.${key.field}`, message: `is taken by another ${key.noun} in ${locale}`, locale },
  ]);
}
