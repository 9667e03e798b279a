import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A sales process: ordered stages a deal moves through. A store has one default pipeline. */
export const Pipeline = defineEntity({
  name: 'CrmPipeline',
  tableName: 'crm_pipeline',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    name: p.string(),
    isDefault: p.boolean(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Pipeline = InferEntity<typeof Pipeline>;

/** One step of a pipeline; `probability` is what a deal entering it gets unless one is set. */
export const Stage = defineEntity({
  name: 'CrmStage',
  tableName: 'crm_stage',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    pipelineId: p.uuid(),
    name: p.string(),
    position: p.integer(),
    probability: p.integer(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Stage = InferEntity<typeof Stage>;
