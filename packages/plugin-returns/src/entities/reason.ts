import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** One of the store's reasons for a return (`wrong_size`, `damaged`, ...), offered to customers while active. */
export const ReturnReason = defineEntity({
  name: 'ReturnReason',
  tableName: 'returns_reason',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    /** Unique in the store; what a return names. */
    code: p.string(),
    label: p.string(),
    active: p.boolean(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type ReturnReason = InferEntity<typeof ReturnReason>;
