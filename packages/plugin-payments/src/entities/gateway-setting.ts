import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A tenant's account on one gateway: its credentials, sealed with core's Secrets, and whether it is on. */
export const GatewaySetting = defineEntity({
  name: 'PaymentGatewaySetting',
  tableName: 'payments_gateway_setting',
  properties: {
    tenantId: p.uuid().primary(),
    gateway: p.string().primary(),
    enabled: p.boolean(),
    /** JSON of every credential, sealed; never returned. */
    credentialsSealed: p.string(),
    /** The credentials that are not secret (a publishable key), readable by the storefront. */
    publicCredentials: p.json<Record<string, string>>(),
    updatedAt: p.datetime(),
  },
});
export type GatewaySetting = InferEntity<typeof GatewaySetting>;
