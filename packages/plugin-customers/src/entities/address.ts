import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** One entry of a customer's address book; exactly one is the default when there are any. */
export const CustomerAddress = defineEntity({
  name: 'CustomerAddress',
  tableName: 'customers_address',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    customerId: p.uuid(),
    firstName: p.string().nullable(),
    lastName: p.string().nullable(),
    company: p.string().nullable(),
    address1: p.string(),
    address2: p.string().nullable(),
    city: p.string(),
    province: p.string().nullable(),
    /** ISO 3166-1 alpha-2, upper-case. */
    countryCode: p.string(),
    zip: p.string().nullable(),
    phone: p.string().nullable(),
    isDefault: p.boolean(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type CustomerAddress = InferEntity<typeof CustomerAddress>;
