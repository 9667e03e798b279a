import { ADMIN, dataOf, errorResponses, IdParams, listOf, NoContent, pageQuery } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { PipelineInput, PipelineOut, PipelinePatch, StageInput, StageOut, StageParams, StagePatch } from '../schemas/pipeline.js';
import { Pipelines } from '../services/pipelines.js';
import { pipelineOut, stageOut } from './serialize.js';

export async function pipelineRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const pipelines = container.resolve(Pipelines);
  const tags = ['CRM pipelines'];
  const read = { auth: ADMIN, permission: 'crm.deals.read' };
  const write = { auth: ADMIN, permission: 'crm.pipelines.write' };

  r.get('/crm/pipelines', {
    config: read,
    schema: { tags, summary: 'List pipelines with their stages, oldest first (the default one is made on first use)', querystring: pageQuery(), response: { 200: listOf(PipelineOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await pipelines.list(req.query);
    return { data: page.items.map(pipelineOut), meta: { pagination: page.pagination } };
  });

  r.post('/crm/pipelines', {
    config: write,
    schema: { tags, summary: 'Create a pipeline with its stages in order', body: PipelineInput, response: { 201: dataOf(PipelineOut), ...errorResponses(400, 401, 403) } },
  }, async (req, reply) => reply.code(201).send({ data: pipelineOut(await pipelines.create(req.body)) }));

  r.get('/crm/pipelines/:id', {
    config: read,
    schema: { tags, summary: 'Read a pipeline and its stages', params: IdParams, response: { 200: dataOf(PipelineOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: pipelineOut(await pipelines.get(req.params.id)) }));

  r.patch('/crm/pipelines/:id', {
    config: write,
    schema: { tags, summary: 'Rename, or make it the default', params: IdParams, body: PipelinePatch, response: { 200: dataOf(PipelineOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: pipelineOut(await pipelines.update(req.params.id, req.body)) }));

  r.delete('/crm/pipelines/:id', {
    config: write,
    schema: { tags, summary: 'Delete a pipeline without deals (not the default)', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req, reply) => {
    await pipelines.remove(req.params.id);
    return reply.code(204).send(null);
  });

  r.post('/crm/pipelines/:id/stages', {
    config: write,
    schema: { tags, summary: 'Add a stage (last unless a position is sent)', params: IdParams, body: StageInput, response: { 201: dataOf(StageOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => reply.code(201).send({ data: stageOut(await pipelines.addStage(req.params.id, req.body)) }));

  r.patch('/crm/pipelines/:id/stages/:stage_id', {
    config: write,
    schema: { tags, summary: 'Rename, reprice or reorder a stage', params: StageParams, body: StagePatch, response: { 200: dataOf(StageOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: stageOut(await pipelines.updateStage(req.params.id, req.params.stage_id, req.body)) }));

  r.delete('/crm/pipelines/:id/stages/:stage_id', {
    config: write,
    schema: { tags, summary: 'Delete a stage without deals', params: StageParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req, reply) => {
    await pipelines.removeStage(req.params.id, req.params.stage_id);
    return reply.code(204).send(null);
  });
}
