import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, Database } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { ProductMetafield, type MetafieldType } from '../entities/product-metafield.js';
import type { MetafieldCreate } from '../schemas/metafield.js';
import { canonicalValue } from './metafield-values.js';
import { requireProduct, requireVariantOf } from './references.js';

export const METAFIELD_EVENTS = ['products.metafield.created', 'products.metafield.updated', 'products.metafield.deleted'] as const;

/** Unpaginated lists stay short. */
export const MAX_METAFIELDS = 250;

/** Typed custom fields of products and variants: the only place that writes them. */
@injectable()
export class Metafields {
  constructor(@inject(Database) private readonly db: Database) {}

  async list(productId: string): Promise<ProductMetafield[]> {
    return this.db.tenant(async ({ em }) => {
      await requireProduct(em, productId);
      return em.find(ProductMetafield, { productId }, { orderBy: { namespace: 'asc', key: 'asc', createdAt: 'asc', id: 'asc' } });
    });
  }

  async create(productId: string, input: MetafieldCreate): Promise<ProductMetafield> {
    return this.db.tenant(async (tx) => {
      const { em } = tx;
      const value = checkedValue(input.value_type, input.value);
      await requireProduct(em, productId);
      await requireVariantOf(em, productId, input.variant_id);
      const variantId = input.variant_id ?? null;
      if (await em.count(ProductMetafield, { productId, variantId, namespace: input.namespace, key: input.key })) {
        throw AppError.conflict(`The metafield ${input.namespace}.${input.key} already exists here`, 'CONFLICT', [
          { path: 'body.key', message: `is taken in namespace ${input.namespace}${variantId ? ' for this variant' : ''}` },
        ]);
      }
      if ((await em.count(ProductMetafield, { productId })) >= MAX_METAFIELDS) {
        throw AppError.unprocessable('TOO_MANY_METAFIELDS', `A product has at most ${MAX_METAFIELDS} metafields`);
      }
      const at = tx.now();
      const metafield = em.create(ProductMetafield, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        productId,
        variantId,
        namespace: input.namespace,
        key: input.key,
        value,
        valueType: input.value_type,
        createdAt: at,
        updatedAt: at,
      });
      tx.publish('products.metafield.created', metafieldEvent(metafield));
      await em.flush();
      return metafield;
    });
  }

  /** Only the value changes, checked against the type the metafield was made with. */
  async update(productId: string, metafieldId: string, raw: unknown): Promise<ProductMetafield> {
    return this.db.tenant(async (tx) => {
      const metafield = await findMetafield(tx.em, productId, metafieldId);
      metafield.value = checkedValue(metafield.valueType, raw);
      metafield.updatedAt = tx.now();
      tx.publish('products.metafield.updated', metafieldEvent(metafield));
      await tx.em.flush();
      return metafield;
    });
  }

  async remove(productId: string, metafieldId: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const metafield = await findMetafield(tx.em, productId, metafieldId);
      tx.em.remove(metafield);
      tx.publish('products.metafield.deleted', { id: metafieldId, product_id: productId, deleted_at: tx.now().toISOString() });
      await tx.em.flush();
    });
  }
}

function checkedValue(type: MetafieldType, raw: unknown): string {
  const check = canonicalValue(type, raw);
  if (!check.ok) throw AppError.validation(`value: ${check.message}`, [{ path: 'body.value', message: check.message }]);
  return check.value;
}

async function findMetafield(em: EntityManager, productId: string, id: string): Promise<ProductMetafield> {
  await requireProduct(em, productId);
  const metafield = await em.findOne(ProductMetafield, { id, productId });
  if (!metafield) throw AppError.notFound('Metafield', 'METAFIELD_NOT_FOUND');
  return metafield;
}

function metafieldEvent(m: ProductMetafield) {
  return {
    id: m.id,
    product_id: m.productId,
    variant_id: m.variantId ?? null,
    namespace: m.namespace,
    key: m.key,
    value: m.value,
    value_type: m.valueType,
    updated_at: m.updatedAt.toISOString(),
  };
}
