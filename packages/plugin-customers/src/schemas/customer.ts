import { customFieldsIn, customFieldsOut, listQuery, LocaleTag, Timestamp } from '@qhatu/core';
import { z } from 'zod';
import { CUSTOMER_STATUSES } from '../entities/customer.js';
import { Email, PersonName, Phone, Tags } from './common.js';

/** The locale the store writes to the customer in: one it lists (422 LOCALE_NOT_LISTED otherwise); null: the store's default. */
export const CustomerLocale = LocaleTag.meta({
  description: "The locale the store's e-mails to the customer are written in: one of the store's locales (422 LOCALE_NOT_LISTED otherwise); null: the store's default",
  example: 'es-PE',
});

export const CustomerCreate = z
  .strictObject({
    email: Email.meta({ description: 'Unique in the store, compared without case; stored lower-case' }),
    first_name: PersonName.nullable().optional(),
    last_name: PersonName.nullable().optional(),
    phone: Phone.nullable().optional(),
    accepts_marketing: z.boolean().optional().meta({ description: 'Defaults to false' }),
    locale: CustomerLocale.nullable().optional(),
    tags: Tags.optional(),
    custom_fields: customFieldsIn('customer').optional(),
  })
  .meta({ id: 'CustomerCreate' });
export type CustomerCreate = z.output<typeof CustomerCreate>;

export const CustomerPatch = CustomerCreate.partial()
  .extend({
    email: Email.optional(),
    status: z.enum(CUSTOMER_STATUSES).optional().meta({ description: 'disabled: the customer cannot sign in and their tokens are revoked' }),
  })
  .meta({ id: 'CustomerPatch' });
export type CustomerPatch = z.output<typeof CustomerPatch>;

/** What a signed-in customer may change of their own record. */
export const CustomerProfilePatch = z
  .strictObject({
    first_name: PersonName.nullable().optional(),
    last_name: PersonName.nullable().optional(),
    phone: Phone.nullable().optional(),
    accepts_marketing: z.boolean().optional(),
    locale: CustomerLocale.nullable().optional(),
    custom_fields: customFieldsIn('customer').optional().meta({ description: 'The public custom fields only' }),
  })
  .meta({ id: 'CustomerProfilePatch' });
export type CustomerProfilePatch = z.output<typeof CustomerProfilePatch>;

export const CustomerOut = z
  .object({
    id: z.uuid(),
    email: z.string(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    phone: z.string().nullable(),
    accepts_marketing: z.boolean(),
    locale: z.string().nullable().meta({ description: "The locale the store's e-mails to the customer are written in; null: the store's default" }),
    tags: z.array(z.string()),
    status: z.enum(CUSTOMER_STATUSES),
    has_account: z.boolean().meta({ description: 'Whether the customer has a password and can sign in' }),
    custom_fields: customFieldsOut('customer'),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Customer' });

export const CustomerListQuery = listQuery({
  filters: { status: z.enum(CUSTOMER_STATUSES) },
  sorts: ['created_at', 'email', 'first_name'],
  defaultSort: '-created_at',
  search: true,
});
export type CustomerListQuery = z.output<typeof CustomerListQuery>;
