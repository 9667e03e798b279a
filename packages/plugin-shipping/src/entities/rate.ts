import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** One line of the store's rate table: a carrier's service on a route, up to a weight. */
export const ShippingRate = defineEntity({
  name: 'ShippingRate',
  tableName: 'shipping_rate',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    carrier: p.string(),
    serviceName: p.string(),
    serviceCode: p.string(),
    currency: p.string(),
    amount: p.bigint('number'),
    estimatedDays: p.integer(),
    /** The heaviest parcel (billable weight, grams) this rate covers. */
    weightG: p.integer(),
    originCountry: p.string(),
    destinationCountry: p.string(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type ShippingRate = InferEntity<typeof ShippingRate>;
