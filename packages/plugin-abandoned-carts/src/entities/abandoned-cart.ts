import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const ABANDONED_CART_STATUSES = ['abandoned', 'reminded', 'recovered'] as const;
export type AbandonedCartStatus = (typeof ABANDONED_CART_STATUSES)[number];
export type RecoveredBy = 'admin' | 'shopper';

/** A checkout cart the sweep found idle: its value when abandoned and what happened since. */
export const AbandonedCart = defineEntity({
  name: 'AbandonedCart',
  tableName: 'abandoned_carts_cart',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    cartId: p.uuid(),
    checkoutId: p.uuid().nullable(),
    customerId: p.uuid().nullable(),
    /** The checkout's e-mail when the cart reached checkout; the reminder goes there. */
    email: p.string().nullable(),
    currency: p.string(),
    itemCount: p.integer(),
    /** Minor units: the cart's total (the checkout's when there is one) when it was abandoned. */
    valueCents: p.bigint('number'),
    status: p.string().$type<AbandonedCartStatus>(),
    reminderCount: p.integer(),
    lastRemindedAt: p.datetime().nullable(),
    recoveredAt: p.datetime().nullable(),
    recoveredBy: p.string().$type<RecoveredBy>().nullable(),
    recoveredValueCents: p.bigint('number').nullable(),
    /** The new cart a recovery link opened, when the cart itself was frozen by its abandoned checkout. */
    restoredCartId: p.uuid().nullable(),
    restoredAt: p.datetime().nullable(),
    abandonedAt: p.datetime(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type AbandonedCart = InferEntity<typeof AbandonedCart>;
