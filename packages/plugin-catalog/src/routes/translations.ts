import { ADMIN, dataOf, errorResponses, IdParams, NoContent, type Translation } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { z } from 'zod';
import { TRANSLATED_FIELDS, translationSchemas, TranslationParams, VariantTranslationParams, type TranslatedResource } from '../schemas/translation.js';
import { VariantParams } from '../schemas/product.js';
import { CatalogTranslations, type TranslatedRef } from '../services/translations.js';

const NOT_LISTED = 'A locale the store does not list is a 422 LOCALE_NOT_LISTED; its default locale, a 422 LOCALE_IS_DEFAULT (its texts are the resource\u2019s own fields).';

function translationOut(resource: TranslatedResource, t: Translation) {
  return {
    locale: t.locale,
    ...Object.fromEntries(Object.keys(TRANSLATED_FIELDS[resource]).map((k) => [k, t.fields[k] ?? null])),
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}

interface Spec {
  resource: TranslatedResource;
  /** The resource's address, e.g. `/catalog/products/:id`. */
  path: string;
  tags: string[];
  params: z.ZodObject;
  localeParams: z.ZodObject;
  ref: (params: Record<string, string>) => TranslatedRef;
}

/** GET …/translations, PUT and DELETE …/translations/:locale of one kind of resource. */
function translationRoutesOf(app: FastifyInstance, translations: CatalogTranslations, spec: Spec): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { resource, tags } = spec;
  const { input, out } = translationSchemas(resource);
  const read = { auth: ADMIN, permission: 'catalog.read' };
  const write = { auth: ADMIN, permission: 'catalog.write' };

  r.get(`${spec.path}/translations`, {
    config: read,
    schema: { tags, summary: `List the ${resource}'s translations, one per locale`, params: spec.params, response: { 200: dataOf(z.array(out)), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: (await translations.list(resource, spec.ref(req.params as Record<string, string>))).map((t) => translationOut(resource, t)) }));

  r.put(`${spec.path}/translations/:locale`, {
    config: write,
    schema: { tags, summary: `Translate the ${resource} into a locale of the store`, description: NOT_LISTED, params: spec.localeParams, body: input, response: { 200: dataOf(out), ...errorResponses(400, 401, 403, 404, 422) } },
  }, async (req) => {
    const params = req.params as Record<string, string>;
    return { data: translationOut(resource, await translations.put(resource, spec.ref(params), params.locale, req.body as Record<string, string | undefined>)) };
  });

  r.delete(`${spec.path}/translations/:locale`, {
    config: write,
    schema: { tags, summary: `Remove the ${resource}'s translation into a locale (it reads in the default locale there again)`, params: spec.localeParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    const params = req.params as Record<string, string>;
    await translations.remove(resource, spec.ref(params), params.locale);
    return reply.code(204).send(null);
  });
}

/** Translations of products, variants, collections and brands (decision 0089). */
export async function translationRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const translations = container.resolve(CatalogTranslations);
  const byId = (params: Record<string, string>) => ({ id: params.id });
  translationRoutesOf(app, translations, { resource: 'product', path: '/catalog/products/:id', tags: ['Products'], params: IdParams, localeParams: TranslationParams, ref: byId });
  translationRoutesOf(app, translations, {
    resource: 'variant',
    path: '/catalog/products/:id/variants/:variant_id',
    tags: ['Products'],
    params: VariantParams,
    localeParams: VariantTranslationParams,
    ref: (params) => ({ id: params.variant_id, productId: params.id }),
  });
  translationRoutesOf(app, translations, { resource: 'collection', path: '/catalog/collections/:id', tags: ['Collections'], params: IdParams, localeParams: TranslationParams, ref: byId });
  translationRoutesOf(app, translations, { resource: 'brand', path: '/catalog/brands/:id', tags: ['Brands'], params: IdParams, localeParams: TranslationParams, ref: byId });
}
