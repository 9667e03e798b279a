import { ADMIN, dataOf, errorResponses, IdParams, NoContent } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { z } from 'zod';
import { NoQuery } from '../schemas/common.js';
import { DownloadCreate, DownloadOut, DownloadParams, DownloadPatch } from '../schemas/download.js';
import { Downloads } from '../services/downloads.js';
import { downloadOut } from './serialize.js';

/** A product's files are what its buyers pay for: admin keys only. */
export async function downloadRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const downloads = container.resolve(Downloads);
  const tags = ['Product downloads'];

  r.get('/catalog/products/:id/downloads', {
    config: { auth: ADMIN, permission: 'catalog.read' },
    schema: { tags, summary: "List a product's downloads", params: IdParams, querystring: NoQuery, response: { 200: z.object({ data: z.array(DownloadOut) }), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: (await downloads.list(req.params.id)).map(downloadOut) }));

  r.post('/catalog/products/:id/downloads', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Add a download', params: IdParams, body: DownloadCreate, response: { 201: dataOf(DownloadOut), ...errorResponses(400, 401, 403, 404, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: downloadOut(await downloads.create(req.params.id, req.body)) }));

  r.patch('/catalog/products/:id/downloads/:download_id', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Change the fields sent', params: DownloadParams, body: DownloadPatch, response: { 200: dataOf(DownloadOut), ...errorResponses(400, 401, 403, 404, 422) } },
  }, async (req) => ({ data: downloadOut(await downloads.update(req.params.id, req.params.download_id, req.body)) }));

  r.delete('/catalog/products/:id/downloads/:download_id', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Delete a download', params: DownloadParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await downloads.remove(req.params.id, req.params.download_id);
    return reply.code(204).send(null);
  });
}
