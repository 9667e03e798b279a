import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { CustomFieldValues } from '@qhatu/core';

export const CUSTOMER_STATUSES = ['active', 'disabled'] as const;
export type CustomerStatus = (typeof CUSTOMER_STATUSES)[number];

/**
 * A shopper of the store, with or without an account. Absent names are stored as '' (shown as
 * null) so that the `first_name` sort pages by keyset without NULLs; e-mails are stored lower-case.
 */
export const Customer = defineEntity({
  name: 'Customer',
  tableName: 'customers_customer',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    email: p.string(),
    firstName: p.string(),
    lastName: p.string(),
    /** E.164: `+` and up to 15 digits. */
    phone: p.string().nullable(),
    acceptsMarketing: p.boolean(),
    /** The locale the store writes to the customer in (one it lists); null: the store's default. */
    locale: p.string().nullable(),
    tags: p.json<string[]>(),
    status: p.string().$type<CustomerStatus>(),
    /** Whether the customer has a password (an account); read from the credentials table. */
    hasAccount: p
      .boolean()
      .formula((a) => `exists (select 1 from customers_credential c where c.tenant_id = ${a}.tenant_id and c.customer_id = ${a}.id)`)
      .persist(false)
      .nullable(),
    /** Declared by plugins and the project (core's `CustomFields`). */
    customFields: p.json<CustomFieldValues>().onCreate(() => ({})),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Customer = InferEntity<typeof Customer>;
