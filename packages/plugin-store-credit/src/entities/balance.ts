import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A customer's store credit in one currency (minor units); the row every change of it locks. */
export const StoreCreditBalance = defineEntity({
  name: 'StoreCreditBalance',
  tableName: 'store_credit_balance',
  properties: {
    tenantId: p.uuid(),
    customerId: p.uuid().primary(),
    currency: p.string().primary(),
    balance: p.bigint('number'),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type StoreCreditBalance = InferEntity<typeof StoreCreditBalance>;
