import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** What happens to a paid order that cannot get its stock (decision 0055). */
export const STOCK_POLICIES = ['refund', 'wait'] as const;
export type StockPolicy = (typeof STOCK_POLICIES)[number];

/** A store's order settings; a store without a row has the defaults. */
export const OrderSettings = defineEntity({
  name: 'OrderSettings',
  tableName: 'orders_settings',
  properties: {
    tenantId: p.uuid().primary(),
    stockPolicy: p.string().$type<StockPolicy>(),
    updatedAt: p.datetime(),
  },
});
export type OrderSettings = InferEntity<typeof OrderSettings>;
