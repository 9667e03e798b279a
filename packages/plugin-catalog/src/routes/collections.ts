import { ADMIN, dataOf, errorResponses, filtersOf, IdParams, listOf, LocaleQuery, NoContent, ReadCache, STOREFRONT } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import {
  CollectionCreate,
  CollectionListQuery,
  CollectionOut,
  CollectionProductCreate,
  CollectionProductEntry,
  CollectionProductOut,
  CollectionProductParams,
  CollectionProductsQuery,
  CollectionReplace,
  SlugParams,
} from '../schemas/collection.js';
import { CollectionProducts } from '../services/collection-products.js';
import { Collections, type CollectionFilter } from '../services/collections.js';
import { CatalogTranslations } from '../services/translations.js';
import { collectionOut, collectionProductOut } from './serialize.js';
import { answerRead, NotModified, STOREFRONT_CACHED } from './storefront-cache.js';

const ENTRIES_PRICED =
  "Prices are in the currency asked with `currency`, else the market's (`market` or X-Market, whose locale the texts take when none is asked), else the store's default; each entry's `currency` names it. " +
  "An entry's `price` is its product's first variant's (by position); in another currency, as the product reads leave out a variant with no price there, " +
  "it is the first variant's with one (explicit, else derived by the store's rate and rounding), and null when no variant has one. " +
  "Unknown market: 422 MARKET_NOT_FOUND; a currency the store does not sell in (or not the market's): 422 CURRENCY_NOT_LISTED.";

export async function collectionRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const collections = container.resolve(Collections);
  const members = container.resolve(CollectionProducts);
  const cache = container.resolve(ReadCache);
  const translations = container.resolve(CatalogTranslations);
  const tags = ['Collections'];

  r.get('/catalog/collections', {
    config: { auth: STOREFRONT },
    schema: { tags, summary: 'List collections', description: STOREFRONT_CACHED, querystring: CollectionListQuery, response: { 200: listOf(CollectionOut), 304: NotModified, ...errorResponses(400, 401, 403, 422) } },
  }, (req, reply) => answerRead(cache, req, reply, async (activeOnly, locale) => {
    const page = await collections.list(req.query, { ...(filtersOf(req.query) as CollectionFilter), activeOnly, locale });
    return { data: await translations.translate('collection', page.items.map(collectionOut), locale), meta: { pagination: page.pagination } };
  }));

  r.post('/catalog/collections', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Create a collection', body: CollectionCreate, response: { 201: dataOf(CollectionOut), ...errorResponses(400, 401, 403, 409, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: collectionOut(await collections.create(req.body)) }));

  r.get('/catalog/collections/:id', {
    config: { auth: STOREFRONT },
    schema: { tags, summary: 'Read a collection with its product_count', description: STOREFRONT_CACHED, params: IdParams, querystring: LocaleQuery, response: { 200: dataOf(CollectionOut), 304: NotModified, ...errorResponses(400, 401, 403, 404, 422) } },
  }, (req, reply) => answerRead(cache, req, reply, async (activeOnly, locale) => {
    const [collection] = await translations.translate('collection', [collectionOut(await collections.get(req.params.id, { activeOnly }))], locale);
    return { data: collection };
  }));

  r.get('/catalog/collections/slug/:slug', {
    config: { auth: STOREFRONT },
    schema: {
      tags,
      summary: 'Read a collection by its slug',
      description: `${STOREFRONT_CACHED} In a locale the slug is the collection's slug there (its translation's) or its own.`,
      params: SlugParams,
      querystring: LocaleQuery,
      response: { 200: dataOf(CollectionOut), 304: NotModified, ...errorResponses(400, 401, 403, 404, 422) },
    },
  }, (req, reply) => answerRead(cache, req, reply, async (activeOnly, locale) => {
    const [collection] = await translations.translate('collection', [collectionOut(await collections.getBySlug(req.params.slug, { activeOnly, locale }))], locale);
    return { data: collection };
  }));

  r.put('/catalog/collections/:id', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Replace a collection (the create fields plus position)', params: IdParams, body: CollectionReplace, response: { 200: dataOf(CollectionOut), ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req) => ({ data: collectionOut(await collections.replace(req.params.id, req.body)) }));

  r.delete('/catalog/collections/:id', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Delete a collection (its products stay)', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await collections.remove(req.params.id);
    return reply.code(204).send(null);
  });

  r.get('/catalog/collections/:id/products', {
    config: { auth: STOREFRONT },
    schema: {
      tags,
      summary: "List the collection's products in its sort_order",
      description: `${STOREFRONT_CACHED} ${ENTRIES_PRICED}`,
      params: IdParams,
      querystring: CollectionProductsQuery,
      response: { 200: listOf(CollectionProductEntry), 304: NotModified, ...errorResponses(400, 401, 403, 404, 422) },
    },
  }, (req, reply) => answerRead(cache, req, reply, async (activeOnly, locale, priced) => {
    const page = await members.page(req.params.id, req.query, { activeOnly, priced });
    // An entry's slug is its product's handle, in the locale too.
    const entries = await translations.translate('product', page.entries.map((e) => ({ ...e, handle: e.slug })), locale);
    return { data: entries.map(({ handle, ...e }) => ({ ...e, slug: handle })), meta: { pagination: page.pagination } };
  }));

  r.post('/catalog/collections/:id/products', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Add a product to the collection', params: IdParams, body: CollectionProductCreate, response: { 201: dataOf(CollectionProductOut), ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: collectionProductOut(await members.add(req.params.id, req.body)) }));

  r.delete('/catalog/collections/:id/products/:product_id', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Take a product out of the collection', params: CollectionProductParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await members.remove(req.params.id, req.params.product_id);
    return reply.code(204).send(null);
  });
}
