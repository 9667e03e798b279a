import { randomUUID } from 'node:crypto';
import { AppError, Database, paginate, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Deal } from '../entities/deal.js';
import { Pipeline, Stage } from '../entities/pipeline.js';
import type { PipelineInput, PipelinePatch, StageInput, StagePatch } from '../schemas/pipeline.js';

/** The stages of the pipeline a store gets on first need. */
export const DEFAULT_STAGES = [
  { name: 'Qualification', probability: 10 },
  { name: 'Needs analysis', probability: 25 },
  { name: 'Proposal', probability: 50 },
  { name: 'Negotiation', probability: 75 },
  { name: 'Closing', probability: 90 },
] as const;

export interface PipelineView {
  pipeline: Pipeline;
  stages: Stage[];
}

const notFound = () => AppError.notFound('Pipeline', 'PIPELINE_NOT_FOUND');
const stageNotFound = () => AppError.notFound('Stage', 'STAGE_NOT_FOUND');

@injectable()
export class Pipelines {
  constructor(@inject(Database) private readonly db: Database) {}

  /**
   * The store's default pipeline, made with its stages on first need. Two requests making it at
   * once insert one: the partial unique index on the default makes the second insert do nothing,
   * after waiting for the first to commit, and then it reads the first's.
   */
  async ensureDefault(tx: Tx): Promise<PipelineView> {
    const existing = await tx.em.findOne(Pipeline, { isDefault: true });
    if (existing) return { pipeline: existing, stages: await this.stagesOf(tx, existing.id) };
    const id = randomUUID();
    const now = tx.now();
    const stages = DEFAULT_STAGES.map((s, i) => [randomUUID(), s.name, i, s.probability]);
    await tx.em.execute(
      `with made as (
         insert into crm_pipeline (tenant_id, id, name, is_default, created_at, updated_at)
         values (?, ?, 'Sales', true, ?, ?) on conflict (tenant_id) where is_default do nothing returning id)
       insert into crm_stage (tenant_id, id, pipeline_id, name, position, probability, created_at, updated_at)
       select ?, s.id::uuid, made.id, s.name, s.position::int, s.probability::int, ?, ?
       from made, jsonb_to_recordset(?::jsonb) as s(id text, name text, position int, probability int)`,
      [tx.tenantId, id, now, now, tx.tenantId, now, now, JSON.stringify(stages.map(([sid, name, position, probability]) => ({ id: sid, name, position, probability })))],
    );
    const pipeline = await tx.em.findOneOrFail(Pipeline, { isDefault: true }, { refresh: true });
    return { pipeline, stages: await this.stagesOf(tx, pipeline.id) };
  }

  stagesOf(tx: Tx, pipelineId: string): Promise<Stage[]> {
    return tx.em.find(Stage, { pipelineId }, { orderBy: { position: 'asc', id: 'asc' } });
  }

  /** A pipeline named in a request body, 422 when it is not one of the store's. */
  async referenced(tx: Tx, id: string, field = 'pipeline_id'): Promise<PipelineView> {
    const pipeline = await tx.em.findOne(Pipeline, { id });
    if (!pipeline) {
      throw AppError.unprocessable('PIPELINE_NOT_FOUND', `Pipeline ${id} does not exist in this store`, [{ path: `body.${field}`, message: 'is not a pipeline of this store' }]);
    }
    return { pipeline, stages: await this.stagesOf(tx, id) };
  }

  /** A stage named in a body without its pipeline: 422 when it is not one of the store's. */
  async referencedStage(tx: Tx, id: string, field = 'stage_id'): Promise<Stage> {
    const stage = await tx.em.findOne(Stage, { id });
    if (!stage) {
      throw AppError.unprocessable('STAGE_NOT_FOUND', `Stage ${id} does not exist in this store`, [{ path: `body.${field}`, message: 'is not a stage of this store' }]);
    }
    return stage;
  }

  /** A stage named in a body: it must belong to the pipeline (422 STAGE_NOT_IN_PIPELINE otherwise). */
  async stageIn(tx: Tx, pipelineId: string, stageId: string, field = 'stage_id'): Promise<Stage> {
    const stage = await tx.em.findOne(Stage, { id: stageId });
    if (!stage || stage.pipelineId !== pipelineId) {
      throw AppError.unprocessable('STAGE_NOT_IN_PIPELINE', `Stage ${stageId} is not a stage of pipeline ${pipelineId}`, [{ path: `body.${field}`, message: 'is not a stage of the deal’s pipeline' }]);
    }
    return stage;
  }

  async list(page: { cursor?: string; limit: number }): Promise<{ items: PipelineView[]; pagination: { cursor: string | null; has_next: boolean; limit: number } }> {
    return this.db.tenant(async (tx) => {
      await this.ensureDefault(tx);
      const result = await paginate(tx.em, Pipeline, {}, { ...page, sort: 'created_at' });
      const ids = result.items.map((p) => p.id);
      const stages = ids.length ? await tx.em.find(Stage, { pipelineId: { $in: ids } }, { orderBy: { position: 'asc', id: 'asc' } }) : [];
      return { items: result.items.map((pipeline) => ({ pipeline, stages: stages.filter((s) => s.pipelineId === pipeline.id) })), pagination: result.pagination };
    });
  }

  async get(id: string): Promise<PipelineView> {
    return this.db.tenant(async (tx) => {
      const pipeline = await tx.em.findOne(Pipeline, { id });
      if (!pipeline) throw notFound();
      return { pipeline, stages: await this.stagesOf(tx, id) };
    });
  }

  async create(input: PipelineInput): Promise<PipelineView> {
    return this.db.tenant(async (tx) => {
      await this.ensureDefault(tx);
      const now = tx.now();
      if (input.is_default) await this.clearDefault(tx);
      const pipeline = tx.em.create(Pipeline, { id: randomUUID(), tenantId: tx.tenantId, name: input.name, isDefault: input.is_default ?? false, createdAt: now, updatedAt: now });
      await tx.em.flush(); // before its stages, which the database checks against it
      const stages = input.stages.map((s, position) =>
        tx.em.create(Stage, { id: randomUUID(), tenantId: tx.tenantId, pipelineId: pipeline.id, name: s.name, probability: s.probability, position, createdAt: now, updatedAt: now }),
      );
      await tx.em.flush();
      return { pipeline, stages };
    });
  }

  async update(id: string, patch: PipelinePatch): Promise<PipelineView> {
    return this.db.tenant(async (tx) => {
      const pipeline = await tx.em.findOne(Pipeline, { id });
      if (!pipeline) throw notFound();
      if (patch.name !== undefined) pipeline.name = patch.name;
      if (patch.is_default && !pipeline.isDefault) {
        await this.clearDefault(tx);
        pipeline.isDefault = true;
      }
      pipeline.updatedAt = tx.now();
      await tx.em.flush();
      return { pipeline, stages: await this.stagesOf(tx, id) };
    });
  }

  /** A pipeline goes only when no deal is in it, and never the default one. */
  async remove(id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const pipeline = await tx.em.findOne(Pipeline, { id });
      if (!pipeline) throw notFound();
      if (pipeline.isDefault) throw AppError.conflict('The default pipeline cannot be deleted; make another pipeline the default first', 'PIPELINE_IS_DEFAULT');
      if (await tx.em.count(Deal, { pipelineId: id })) throw AppError.conflict('The pipeline still has deals; move or delete them first', 'PIPELINE_IN_USE');
      await tx.em.nativeDelete(Pipeline, { id });
    });
  }

  async addStage(pipelineId: string, input: StageInput): Promise<Stage> {
    return this.db.tenant(async (tx) => {
      const stages = await this.lockedStages(tx, pipelineId);
      const now = tx.now();
      const stage = tx.em.create(Stage, { id: randomUUID(), tenantId: tx.tenantId, pipelineId, name: input.name, probability: input.probability, position: 0, createdAt: now, updatedAt: now });
      const at = Math.min(input.position ?? stages.length, stages.length);
      this.renumber([...stages.slice(0, at), stage, ...stages.slice(at)], now);
      await tx.em.flush();
      return stage;
    });
  }

  async updateStage(pipelineId: string, stageId: string, patch: StagePatch): Promise<Stage> {
    return this.db.tenant(async (tx) => {
      const stages = await this.lockedStages(tx, pipelineId);
      const stage = stages.find((s) => s.id === stageId);
      if (!stage) throw stageNotFound();
      const now = tx.now();
      if (patch.name !== undefined) stage.name = patch.name;
      if (patch.probability !== undefined) stage.probability = patch.probability;
      stage.updatedAt = now;
      if (patch.position !== undefined) {
        const rest = stages.filter((s) => s.id !== stageId);
        const at = Math.min(patch.position, rest.length);
        this.renumber([...rest.slice(0, at), stage, ...rest.slice(at)], now);
      }
      await tx.em.flush();
      return stage;
    });
  }

  /** A stage goes only when no deal is in it; a pipeline keeps at least one. */
  async removeStage(pipelineId: string, stageId: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const stages = await this.lockedStages(tx, pipelineId);
      const stage = stages.find((s) => s.id === stageId);
      if (!stage) throw stageNotFound();
      if (stages.length === 1) throw AppError.conflict('A pipeline keeps at least one stage', 'PIPELINE_NEEDS_A_STAGE');
      if (await tx.em.count(Deal, { stageId })) throw AppError.conflict('The stage still has deals; move them to another stage first', 'STAGE_IN_USE');
      await tx.em.nativeDelete(Stage, { id: stageId });
      this.renumber(stages.filter((s) => s.id !== stageId), tx.now());
      await tx.em.flush();
    });
  }

  /** The pipeline's stages, the pipeline row locked so that concurrent reorders do not interleave. */
  private async lockedStages(tx: Tx, pipelineId: string): Promise<Stage[]> {
    const [locked] = await tx.em.execute(`select id from crm_pipeline where tenant_id = ? and id = ? for update`, [tx.tenantId, pipelineId]);
    if (!locked) throw notFound();
    return this.stagesOf(tx, pipelineId);
  }

  private renumber(stages: Stage[], now: Date): void {
    stages.forEach((s, position) => {
      if (s.position !== position) {
        s.position = position;
        s.updatedAt = now;
      }
    });
  }

  private async clearDefault(tx: Tx): Promise<void> {
    await tx.em.nativeUpdate(Pipeline, { isDefault: true }, { isDefault: false, updatedAt: tx.now() });
  }
}
