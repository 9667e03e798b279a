import { ADMIN, dataOf, errorResponses, filtersOf, IdParams, listOf, NoContent, ReadCache, STOREFRONT } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import {
  ProductInput,
  ProductListQuery,
  ProductOut,
  ProductPatch,
  VariantInput,
  VariantOut,
  VariantParams,
  VariantPatch,
} from '../schemas/product.js';
import { Products, type ProductFilter } from '../services/products.js';
import { productOut, variantOut } from './serialize.js';
import { answerRead, NotModified, STOREFRONT_CACHED } from './storefront-cache.js';

export async function productRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const products = container.resolve(Products);
  const cache = container.resolve(ReadCache);
  const tags = ['Products'];

  r.get('/catalog/products', {
    config: { auth: STOREFRONT },
    schema: { tags, summary: 'List products', description: STOREFRONT_CACHED, querystring: ProductListQuery, response: { 200: listOf(ProductOut), 304: NotModified, ...errorResponses(400, 401, 403) } },
  }, (req, reply) => answerRead(cache, req, reply, async (activeOnly) => {
    const filter = { ...(filtersOf(req.query) as ProductFilter), q: req.query.q, activeOnly };
    const { items, page } = await products.list(req.query, filter);
    return { data: items.map(productOut), meta: { pagination: page.pagination } };
  }));

  r.post('/catalog/products', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Create a product with its variants', body: ProductInput, response: { 201: dataOf(ProductOut), ...errorResponses(400, 401, 403, 409, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: productOut(await products.create(req.body)) }));

  r.get('/catalog/products/:id', {
    config: { auth: STOREFRONT },
    schema: { tags, summary: 'Read a product', description: STOREFRONT_CACHED, params: IdParams, response: { 200: dataOf(ProductOut), 304: NotModified, ...errorResponses(400, 401, 403, 404) } },
  }, (req, reply) => answerRead(cache, req, reply, async (activeOnly) => ({ data: productOut(await products.get(req.params.id, { activeOnly })) })));

  r.patch('/catalog/products/:id', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Change the fields sent', params: IdParams, body: ProductPatch, response: { 200: dataOf(ProductOut), ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req) => ({ data: productOut(await products.update(req.params.id, req.body)) }));

  r.delete('/catalog/products/:id', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Delete a product and its variants', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await products.remove(req.params.id);
    return reply.code(204).send(null);
  });

  r.post('/catalog/products/:id/variants', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Add a variant', params: IdParams, body: VariantInput, response: { 201: dataOf(VariantOut), ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: variantOut(await products.addVariant(req.params.id, req.body)) }));

  r.patch('/catalog/products/:id/variants/:variant_id', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Change a variant', params: VariantParams, body: VariantPatch, response: { 200: dataOf(VariantOut), ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req) => ({ data: variantOut(await products.updateVariant(req.params.id, req.params.variant_id, req.body)) }));

  r.delete('/catalog/products/:id/variants/:variant_id', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Delete a variant (a product keeps at least one)', params: VariantParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req, reply) => {
    await products.removeVariant(req.params.id, req.params.variant_id);
    return reply.code(204).send(null);
  });
}
