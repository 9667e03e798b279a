import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const HOLD_STATUSES = ['held', 'sold', 'released', 'restocked'] as const;
export type HoldStatus = (typeof HOLD_STATUSES)[number];

/**
 * The units of an offer an order line holds: `held` from the order's placement, `sold` once it is
 * paid, `released` when it is cancelled unpaid, `restocked` when a paid order is cancelled or
 * refunded before those units shipped. Keeps the commission agreed when the order was placed.
 */
export const OfferHold = defineEntity({
  name: 'MarketplaceOfferHold',
  tableName: 'marketplace_offer_hold',
  properties: {
    tenantId: p.uuid().primary(),
    orderId: p.uuid().primary(),
    lineItemId: p.uuid().primary(),
    offerId: p.uuid(),
    vendorId: p.uuid(),
    quantity: p.integer(),
    commissionBps: p.integer(),
    status: p.string().$type<HoldStatus>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type OfferHold = InferEntity<typeof OfferHold>;
