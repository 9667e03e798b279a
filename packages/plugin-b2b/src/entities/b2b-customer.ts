import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const B2B_CUSTOMER_STATUSES = ['active', 'on_hold', 'disabled'] as const;
export type B2BCustomerStatus = (typeof B2B_CUSTOMER_STATUSES)[number];

/** A company that buys wholesale: its RUC, its price list, its credit on account. */
export const B2BCustomer = defineEntity({
  name: 'B2BCustomer',
  tableName: 'b2b_customer',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    companyName: p.string(),
    /** 11 digits, checked (prefix and modulo-11 check digit); unique per store. */
    ruc: p.string(),
    /** Lower-case. */
    email: p.string(),
    phone: p.string().nullable(),
    /** Minor units of the store's currency; 0 means no orders on account. */
    creditLimit: p.bigint('number'),
    priceListId: p.uuid().nullable(),
    status: p.string().$type<B2BCustomerStatus>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type B2BCustomer = InferEntity<typeof B2BCustomer>;
