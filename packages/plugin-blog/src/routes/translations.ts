import { ADMIN, dataOf, errorResponses, IdParams, NoContent, type Translation } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { z } from 'zod';
import { POST_TRANSLATED_FIELDS, PostTranslationOut, PostTranslationParams, PostTranslationReplace } from '../schemas/translation.js';
import { PostTranslations } from '../services/translations.js';

function translationOut(t: Translation) {
  return {
    locale: t.locale,
    ...(Object.fromEntries(POST_TRANSLATED_FIELDS.map((k) => [k, t.fields[k] ?? null])) as Record<(typeof POST_TRANSLATED_FIELDS)[number], string | null>),
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}

/** A post's translations into the store's other locales (decision 0089). */
export async function postTranslationRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const translations = container.resolve(PostTranslations);
  const tags = ['Blog'];

  r.get('/blog/posts/:id/translations', {
    config: { auth: ADMIN, permission: 'blog.read' },
    schema: { tags, summary: "List the post's translations, one per locale", params: IdParams, response: { 200: dataOf(z.array(PostTranslationOut)), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: (await translations.list(req.params.id)).map(translationOut) }));

  r.put('/blog/posts/:id/translations/:locale', {
    config: { auth: ADMIN, permission: 'blog.write' },
    schema: {
      tags,
      summary: 'Translate the post into a locale of the store',
      description: "A locale the store does not list is a 422 LOCALE_NOT_LISTED; its default locale, a 422 LOCALE_IS_DEFAULT (its texts are the post's own fields).",
      params: PostTranslationParams,
      body: PostTranslationReplace,
      response: { 200: dataOf(PostTranslationOut), ...errorResponses(400, 401, 403, 404, 422) },
    },
  }, async (req) => ({ data: translationOut(await translations.put(req.params.id, req.params.locale, req.body)) }));

  r.delete('/blog/posts/:id/translations/:locale', {
    config: { auth: ADMIN, permission: 'blog.write' },
    schema: { tags, summary: "Remove the post's translation into a locale (it reads in the default locale there again)", params: PostTranslationParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await translations.remove(req.params.id, req.params.locale);
    return reply.code(204).send(null);
  });
}
