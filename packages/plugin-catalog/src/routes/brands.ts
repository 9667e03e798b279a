import { ADMIN, dataOf, errorResponses, IdParams, listOf, LocaleQuery, NoContent, requestLocale, STOREFRONT } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { BrandCreate, BrandListQuery, BrandOut } from '../schemas/brand.js';
import { Brands } from '../services/brands.js';
import { CatalogTranslations } from '../services/translations.js';
import { brandOut } from './serialize.js';

export async function brandRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const brands = container.resolve(Brands);
  const translations = container.resolve(CatalogTranslations);
  // Storefronts read a brand's name and description in their locale; there `q` finds its name in either.
  const inLocale = (locale: { translated: boolean; locale: string }) => (locale.translated ? locale.locale : undefined);
  const tags = ['Brands'];

  r.get('/catalog/brands', {
    config: { auth: STOREFRONT },
    schema: { tags, summary: 'List brands (q searches names, in the locale asked too)', querystring: BrandListQuery, response: { 200: listOf(BrandOut), ...errorResponses(400, 401, 403, 422) } },
  }, async (req) => {
    const locale = inLocale(requestLocale(req));
    const { items, page } = await brands.list(req.query, { q: req.query.q, locale });
    return { data: await translations.translate('brand', items.map(brandOut), locale), meta: { pagination: page.pagination } };
  });

  r.post('/catalog/brands', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Create a brand', body: BrandCreate, response: { 201: dataOf(BrandOut), ...errorResponses(400, 401, 403, 409, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: brandOut(await brands.create(req.body)) }));

  r.get('/catalog/brands/:id', {
    config: { auth: STOREFRONT },
    schema: { tags, summary: 'Read a brand', params: IdParams, querystring: LocaleQuery, response: { 200: dataOf(BrandOut), ...errorResponses(400, 401, 403, 404, 422) } },
  }, async (req) => {
    const locale = inLocale(requestLocale(req));
    const [brand] = await translations.translate('brand', [brandOut(await brands.get(req.params.id))], locale);
    return { data: brand };
  });

  r.put('/catalog/brands/:id', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Replace a brand (the create fields)', params: IdParams, body: BrandCreate, response: { 200: dataOf(BrandOut), ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req) => ({ data: brandOut(await brands.replace(req.params.id, req.body)) }));

  r.delete('/catalog/brands/:id', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Delete a brand (its products stay, without a brand)', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await brands.remove(req.params.id);
    return reply.code(204).send(null);
  });
}
