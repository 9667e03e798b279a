import { Uuid } from '@qhatu/core';
import { z } from 'zod';
import { Out, Text } from './common.js';

const Probability = z.number().int().min(0).max(100);

export const StageInput = z
  .strictObject({
    name: Text(),
    probability: Probability.meta({ description: 'What a deal entering the stage gets unless it sets its own (0 to 100)' }),
    position: z.number().int().min(0).optional().meta({ description: 'Where it goes among the stages, from 0; last when absent' }),
  })
  .meta({ id: 'CrmStageCreate' });
export type StageInput = z.output<typeof StageInput>;
export const StagePatch = z
  .strictObject({ name: Text().optional(), probability: Probability.optional(), position: z.number().int().min(0).optional() })
  .meta({ id: 'CrmStagePatch' });
export type StagePatch = z.output<typeof StagePatch>;

export const StageOut = z
  .object({ ...Out, pipeline_id: Uuid, name: z.string(), position: z.number().int(), probability: z.number().int() })
  .meta({ id: 'CrmStage' });

export const PipelineInput = z
  .strictObject({
    name: Text(),
    is_default: z.boolean().optional().meta({ description: 'Makes it the store’s default pipeline (the previous one stops being it)' }),
    stages: z
      .array(StageInput.omit({ position: true }))
      .min(1)
      .max(50)
      .meta({ description: 'In order' }),
  })
  .meta({ id: 'CrmPipelineCreate' });
export type PipelineInput = z.output<typeof PipelineInput>;
export const PipelinePatch = z
  .strictObject({ name: Text().optional(), is_default: z.literal(true).optional().meta({ description: 'Make it the default; another pipeline is made default to change it again' }) })
  .meta({ id: 'CrmPipelinePatch' });
export type PipelinePatch = z.output<typeof PipelinePatch>;

export const PipelineOut = z
  .object({ ...Out, name: z.string(), is_default: z.boolean(), stages: z.array(StageOut) })
  .meta({ id: 'CrmPipeline' });

export const StageParams = z.object({ id: Uuid, stage_id: Uuid });
