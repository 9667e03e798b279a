import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A customer's password, kept apart from the record so that no read of customers ever loads it. */
export const CustomerCredential = defineEntity({
  name: 'CustomerCredential',
  tableName: 'customers_credential',
  properties: {
    tenantId: p.uuid().primary(),
    customerId: p.uuid().primary(),
    /** `scrypt$<N>$<r>$<p>$<salt>$<key>`, base64url; never the password. */
    passwordHash: p.string(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type CustomerCredential = InferEntity<typeof CustomerCredential>;
