import { Readable } from 'node:stream';
import { AppError, errorResponses } from '@qhatu/core';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { z } from 'zod';
import { UploadGrantQuery } from '../schemas/media-file.js';
import { LocalFiles } from '../services/local-files.js';
import { LocalUploads } from '../services/local-uploads.js';
import { MEDIA_SETTINGS, type MediaSettings } from '../settings.js';
import { FILES_PATH, UPLOADS_PATH } from '../storage/local.js';
import { isStorageKey, MEDIA_STORAGE, type MediaStorage } from '../storage/storage.js';

const KeyParams = z.object({ '*': z.string().meta({ description: 'The storage key: <tenant id>/<file id>/<name>, or a variant under <tenant id>/<file id>/' }) });
/** An upload's key is always `<tenant id>/<file id>/<name>` (the original, never a variant). */
const UploadKeyParams = z.object({
  tenant_id: z.string().meta({ description: "The store's id (the key's first segment)" }),
  file_id: z.string().meta({ description: "The media file's id" }),
  name: z.string().meta({ description: "The file's stored name, e.g. Poncho-rojo-frente-.png" }),
});

/** The local adapter's public side: the signed PUT of an upload, and the stored files. */
export async function localStorageRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const uploads = container.resolve(LocalUploads);
  const files = container.resolve(LocalFiles);
  const storage = container.resolve<MediaStorage>(MEDIA_STORAGE);
  const { maxBytes } = container.resolve<MediaSettings>(MEDIA_SETTINGS);
  const tags = ['Media storage'];

  // Any content type, as a stream: the body goes to disk as it arrives, never into memory.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    scope.withTypeProvider<ZodTypeProvider>().put(`${UPLOADS_PATH}/:tenant_id/:file_id/:name`, {
      config: { auth: 'public' },
      bodyLimit: maxBytes,
      schema: {
        tags,
        summary: 'Upload the bytes of a pending file (the signed upload_url)',
        params: UploadKeyParams,
        querystring: UploadGrantQuery,
        response: { 200: z.null().meta({ description: 'Stored; the ETag header is the MD5 of the bytes' }), ...errorResponses(400, 403, 404, 409, 413, 415, 422) },
      },
    }, async (req, reply) => {
      const { type, size, expires, signature } = req.query;
      const length = req.headers['content-length'];
      const { tenant_id, file_id, name } = req.params;
      const etag = await uploads.receive({ key: `${tenant_id}/${file_id}/${name}`, contentType: type, size, expires }, signature, {
        contentType: req.headers['content-type'],
        contentLength: length === undefined ? undefined : Number(length),
        body: (req.body as Readable | undefined) ?? Readable.from([]),
      });
      // An empty body, as S3 answers a presigned PUT.
      return (reply as FastifyReply).code(200).header('etag', `"${etag}"`).send();
    });
  });

  app.withTypeProvider<ZodTypeProvider>().get(`${FILES_PATH}/*`, {
    config: { auth: 'public' },
    schema: {
      tags,
      summary: 'A confirmed file or one of its variants, by its storage key (pending and failed files are 404)',
      params: KeyParams,
      response: { 200: z.unknown().meta({ description: "The file's bytes, with its content type" }), ...errorResponses(400, 404) },
    },
  }, async (req, reply) => {
    const key = req.params['*'];
    // Unknown, pending (not confirmed yet) and failed files get the same answer: nothing is revealed.
    const object = isStorageKey(key) && (await files.isPublished(key)) ? await storage.get(key) : null;
    if (!object) throw AppError.notFound('File', 'NOT_FOUND');
    return reply
      .type(object.contentType)
      .header('content-length', object.size)
      .header('cache-control', 'public, max-age=3600')
      .header('x-content-type-options', 'nosniff')
      // Opened directly, an uploaded file runs no script of ours.
      .header('content-security-policy', "default-src 'none'; sandbox")
      .send(object.body);
  });
}
