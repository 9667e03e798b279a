import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const METHOD_KINDS = ['cash_on_delivery', 'bank_transfer', 'wallet'] as const;
export type MethodKind = (typeof METHOD_KINDS)[number];

/** A way the store takes money outside any provider: cash on delivery, a bank account, a wallet. */
export const OfflineMethod = defineEntity({
  name: 'OfflineMethod',
  tableName: 'offline_method',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    name: p.string(),
    kind: p.string().$type<MethodKind>(),
    /** What the shopper is told: the account number, the wallet's phone, what the courier takes. */
    instructions: p.text(),
    /** ISO 4217 codes the method takes. */
    currencies: p.json<string[]>(),
    enabled: p.boolean(),
    /** The order the storefront lists the methods in, lowest first. */
    position: p.integer(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type OfflineMethod = InferEntity<typeof OfflineMethod>;
