import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A link e-mailed to finish a sign-up: it sets the password of the customer the store created
 * (`customerId`), or creates the customer (`customerId` null). Single use, expiring; the token
 * itself is never stored, only its SHA-256 digest.
 */
export const AccountLink = defineEntity({
  name: 'AccountLink',
  tableName: 'customers_account_link',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    tokenHash: p.string(),
    email: p.string(),
    customerId: p.uuid().nullable(),
    /** The names the shopper gave when signing up; they only fill in blanks of a store's record. */
    firstName: p.string(),
    lastName: p.string(),
    /** The locale the registration chose: the customer it creates is written to in it (null: the store's default). */
    locale: p.string().nullable(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});
export type AccountLink = InferEntity<typeof AccountLink>;
