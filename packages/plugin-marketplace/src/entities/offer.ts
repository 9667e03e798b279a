import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A vendor's offer of a catalog product (the specification's vendor product): its price, its own
 * stock, and the units of it held by orders not paid yet. Unlinking keeps the row (orders and the
 * ledger name it) with `unlinkedAt` set.
 */
export const Offer = defineEntity({
  name: 'MarketplaceOffer',
  tableName: 'marketplace_offer',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    vendorId: p.uuid(),
    productId: p.uuid(),
    /** Minor units per unit, whichever variant of the product; null: the variant's catalog price. */
    priceOverride: p.bigint('number').nullable(),
    /** Units the vendor has for the store, held ones included. */
    stock: p.integer(),
    /** Units held by orders placed and not paid yet; never above `stock`. */
    reserved: p.integer(),
    /** Hundredths of a percent; null: the vendor's default commission. */
    commissionBps: p.integer().nullable(),
    unlinkedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Offer = InferEntity<typeof Offer>;
