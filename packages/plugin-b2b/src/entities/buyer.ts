import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A customer account of the store that buys for a B2B customer (one company per account). */
export const Buyer = defineEntity({
  name: 'B2BBuyer',
  tableName: 'b2b_buyer',
  properties: {
    tenantId: p.uuid().primary(),
    customerId: p.uuid().primary(),
    b2bCustomerId: p.uuid(),
    createdAt: p.datetime(),
  },
});
export type Buyer = InferEntity<typeof Buyer>;
