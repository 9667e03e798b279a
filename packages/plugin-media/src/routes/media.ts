import { ADMIN, dataOf, errorResponses, filtersOf, hasPermission, IdParams, listOf, NoContent, STOREFRONT, TenantContext } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { AltTextChange, FailureReport, MediaFileOut, MediaListQuery, UploadRequest, UploadTicket, VariantRecord } from '../schemas/media-file.js';
import { MediaFiles, type MediaFilter } from '../services/media-files.js';
import { mediaFileOut } from './serialize.js';

/** Storefront keys and customers see uploaded files only. */
const uploadedOnly = () => !hasPermission(TenantContext.principal(), 'media.write');

export async function mediaRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const files = container.resolve(MediaFiles);
  const tags = ['Media'];
  const base = '/api/v1/media';

  r.post(`${base}/upload`, {
    config: { auth: ADMIN, permission: 'media.write' },
    schema: { tags, summary: 'Start an upload: a pending file and a signed PUT address valid for 15 minutes', body: UploadRequest, response: { 201: dataOf(UploadTicket), ...errorResponses(400, 401, 403, 413, 415) } },
  }, async (req, reply) => {
    const { file, uploadUrl, expiresAt } = await files.initiate(req.body);
    return reply.code(201).send({ data: { file_id: file.id, upload_url: uploadUrl, expires_at: expiresAt.toISOString() } });
  });

  r.post(`${base}/:id/confirm`, {
    config: { auth: ADMIN, permission: 'media.write' },
    schema: { tags, summary: 'Confirm that the bytes arrived; the file becomes uploaded and images get variants', params: IdParams, response: { 200: dataOf(MediaFileOut), ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req) => ({ data: mediaFileOut(await files.confirm(req.params.id)) }));

  r.get(base, {
    config: { auth: STOREFRONT },
    schema: { tags, summary: 'List media files, newest first', querystring: MediaListQuery, response: { 200: listOf(MediaFileOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await files.list(req.query, { ...(filtersOf(req.query) as MediaFilter), uploadedOnly: uploadedOnly() });
    return { data: page.items.map(mediaFileOut), meta: { pagination: page.pagination } };
  });

  r.get(`${base}/:id`, {
    config: { auth: STOREFRONT },
    schema: { tags, summary: 'Read a media file', params: IdParams, response: { 200: dataOf(MediaFileOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: mediaFileOut(await files.get(req.params.id, { uploadedOnly: uploadedOnly() })) }));

  r.patch(`${base}/:id/alt-text`, {
    config: { auth: ADMIN, permission: 'media.write' },
    schema: { tags, summary: 'Set the alternative text', params: IdParams, body: AltTextChange, response: { 200: dataOf(MediaFileOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: mediaFileOut(await files.setAltText(req.params.id, req.body.alt_text)) }));

  r.post(`${base}/:id/variants`, {
    config: { auth: ADMIN, permission: 'media.write' },
    schema: { tags, summary: 'Record a variant made by a processing worker (replaces the one of the same name)', params: IdParams, body: VariantRecord, response: { 200: dataOf(MediaFileOut), ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req) => ({ data: mediaFileOut(await files.recordVariant(req.params.id, req.body)) }));

  r.post(`${base}/:id/fail`, {
    config: { auth: ADMIN, permission: 'media.write' },
    schema: { tags, summary: 'Mark the file failed, recording the reason', params: IdParams, body: FailureReport, response: { 200: dataOf(MediaFileOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: mediaFileOut(await files.fail(req.params.id, req.body.reason)) }));

  r.delete(`${base}/:id`, {
    config: { auth: ADMIN, permission: 'media.write' },
    schema: { tags, summary: 'Delete the file and every stored object of it', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await files.remove(req.params.id);
    return reply.code(204).send(null);
  });
}
