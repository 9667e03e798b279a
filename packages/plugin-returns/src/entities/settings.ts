import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * How much of the order's shipping a return gives back (decision 0074): none, a share in proportion
 * to the value of the items returned, or all of it with the return that brings the last item back.
 */
export const SHIPPING_REFUND_POLICIES = ['none', 'proportional', 'full_return'] as const;
export type ShippingRefundPolicy = (typeof SHIPPING_REFUND_POLICIES)[number];

/** A store's return settings; a store without a row has the defaults. */
export const ReturnSettings = defineEntity({
  name: 'ReturnSettings',
  tableName: 'returns_settings',
  properties: {
    tenantId: p.uuid().primary(),
    shippingRefund: p.string().$type<ShippingRefundPolicy>(),
    /** Days after an order was fulfilled during which its customer may ask for a return; null: no limit. */
    windowDays: p.integer().nullable(),
    updatedAt: p.datetime(),
  },
});
export type ReturnSettings = InferEntity<typeof ReturnSettings>;
