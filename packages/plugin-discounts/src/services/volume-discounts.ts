import { randomUUID } from 'node:crypto';
import { AppError, Database, paginate, Tenant, TenantContext, type DomainEvent, type Page, type PageRequest, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { VolumeDiscount } from '../entities/volume-discount.js';
import type { VolumeDiscountCreate } from '../schemas/volume-discount.js';
import { requireProduct } from './catalog-references.js';
import { assertAmounts } from './currencies.js';

export const VOLUME_DISCOUNT_EVENTS = ['discounts.volume_discount.created', 'discounts.volume_discount.deleted'] as const;

/** Volume discount tiers of the store's products; the only writer of them. */
@injectable()
export class VolumeDiscounts {
  constructor(@inject(Database) private readonly db: Database) {}

  /**
   * A new tier of one product. A product's tiers, ordered by min_quantity, give strictly more
   * the more units are bought: one tier per quantity (409), all of one type (422
   * VOLUME_TIER_TYPE_MIXED), and a value above the tier below it and under the tier above it (422
   * VOLUME_TIERS_NOT_INCREASING). A fixed tier's amounts are in the store's currencies (422 CURRENCY_NOT_LISTED).
   */
  async create(input: VolumeDiscountCreate): Promise<VolumeDiscount> {
    return this.db.tenant(async (tx) => {
      const { em } = tx;
      await requireProduct(em, input.product_id, 'body.product_id');
      await lockProductTiers(tx, input.product_id);
      const tiers = await em.find(VolumeDiscount, { productId: input.product_id }, { orderBy: { minQuantity: 'asc' } });
      if (tiers.some((t) => t.minQuantity === input.min_quantity)) {
        throw AppError.conflict(`The product already has a tier from ${input.min_quantity} units`, 'CONFLICT', [
          { path: 'body.min_quantity', message: 'the product already has a tier at this quantity' },
        ]);
      }
      const type = input.type ?? 'percentage';
      const other = tiers.find((t) => t.type !== type);
      if (other) {
        throw AppError.unprocessable('VOLUME_TIER_TYPE_MIXED', `The product's tiers are ${other.type}: a new one must be too`, [
          { path: 'body.type', message: `must be ${other.type}, as the product's other tiers` },
        ]);
      }
      const below = tiers.filter((t) => t.minQuantity < input.min_quantity).at(-1);
      const above = tiers.find((t) => t.minQuantity > input.min_quantity);
      if ((below && below.value >= input.value) || (above && above.value <= input.value)) {
        const bounds = [below && `more than ${below.value} (from ${below.minQuantity} units)`, above && `less than ${above.value} (from ${above.minQuantity} units)`];
        const message = `must be ${bounds.filter(Boolean).join(' and ')}`;
        throw AppError.unprocessable('VOLUME_TIERS_NOT_INCREASING', `A larger quantity must give a larger discount: value ${message}`, [
          { path: 'body.value', message },
        ]);
      }
      const currency = input.currency ?? TenantContext.principal()?.money?.defaultCurrency ?? (await em.findOneOrFail(Tenant, { id: tx.tenantId })).currency;
      const amounts = input.amounts ?? {};
      await assertAmounts(tx, currency, [{ path: 'body.amounts', amounts, ownField: 'value' }]);
      const at = tx.now();
      const tier = em.create(VolumeDiscount, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        productId: input.product_id,
        minQuantity: input.min_quantity,
        type,
        value: input.value,
        currency,
        amounts,
        createdAt: at,
        updatedAt: at,
      });
      tx.publish('discounts.volume_discount.created', volumeEvent(tier));
      await em.flush();
      return tier;
    });
  }

  async list(page: PageRequest, filter: { product_id?: string }): Promise<Page<VolumeDiscount>> {
    return this.db.tenant(({ em }) => paginate(em, VolumeDiscount, filter.product_id ? { productId: filter.product_id } : {}, page));
  }

  async remove(id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const tier = await tx.em.findOne(VolumeDiscount, { id });
      if (!tier) throw AppError.notFound('Volume discount', 'VOLUME_DISCOUNT_NOT_FOUND');
      tx.em.remove(tier);
      tx.publish('discounts.volume_discount.deleted', { id: tier.id, product_id: tier.productId, deleted_at: tx.now().toISOString() });
      await tx.em.flush();
    });
  }
}

/**
 * A product deleted from the catalog takes its tiers with it. An outbox subscriber: it runs in the
 * relay's transaction with the platform's rights, once per event (at least once across crashes).
 */
export async function forgetDeletedProduct(event: DomainEvent, tx: Tx): Promise<void> {
  if (event.type !== 'products.product.deleted' || typeof event.data.id !== 'string') return;
  await tx.em.execute('delete from discounts_volume_discount where tenant_id = ? and product_id = ?', [event.tenantId, event.data.id]);
}

/** Tiers of one product are written one transaction at a time, so that two new tiers cannot break the order together. */
async function lockProductTiers(tx: Tx, productId: string): Promise<void> {
  await tx.em.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`discounts.volume:${tx.tenantId}:${productId}`]);
}

function volumeEvent(t: VolumeDiscount) {
  return { id: t.id, product_id: t.productId, min_quantity: t.minQuantity, type: t.type, value: t.value, currency: t.currency, ...(t.type === 'fixed_amount' && { amounts: t.amounts }) };
}
