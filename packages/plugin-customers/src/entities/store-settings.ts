import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const REGISTRATION_MODES = ['verify', 'instant', 'claim'] as const;
export type RegistrationMode = (typeof REGISTRATION_MODES)[number];

/** A store's own customer-account settings; a null field follows the platform's default. */
export const CustomerStoreSettings = defineEntity({
  name: 'CustomerStoreSettings',
  tableName: 'customers_settings',
  properties: {
    tenantId: p.uuid().primary(),
    registration: p.string().$type<RegistrationMode>().nullable(),
    accountUrl: p.string().nullable(),
    updatedAt: p.datetime(),
  },
});
export type CustomerStoreSettings = InferEntity<typeof CustomerStoreSettings>;
