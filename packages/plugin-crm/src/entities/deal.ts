import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const DEAL_STATUSES = ['open', 'won', 'lost'] as const;
export type DealStatus = (typeof DEAL_STATUSES)[number];

/** A sale in progress: a stage of a pipeline, an amount, and how likely it is to close. */
export const Deal = defineEntity({
  name: 'CrmDeal',
  tableName: 'crm_deal',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    pipelineId: p.uuid(),
    stageId: p.uuid(),
    contactId: p.uuid().nullable(),
    accountId: p.uuid().nullable(),
    ownerId: p.uuid().nullable(),
    title: p.string(),
    amount: p.bigint('number'),
    currency: p.string(),
    status: p.string().$type<DealStatus>(),
    probability: p.integer(),
    expectedClose: p.datetime().nullable(),
    lostReason: p.string().nullable(),
    tags: p.json<string[]>(),
    metadata: p.json<Record<string, unknown>>(),
    closedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Deal = InferEntity<typeof Deal>;
