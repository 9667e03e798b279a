import { ADMIN, answerAsBuilt, CustomFields, dataOf, errorResponses, filtersOf, IdParams, listOf, NoContent, ReadCache, STOREFRONT, type CustomFieldAudience } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import {
  HandleParams,
  ProductInput,
  ProductListQuery,
  ProductOut,
  ProductPatch,
  ProductReadQuery,
  VariantInput,
  VariantOut,
  VariantParams,
  VariantPatch,
} from '../schemas/product.js';
import { Products, type ProductFilter } from '../services/products.js';
import { productOut, variantOut, type ShowCustomFields } from './serialize.js';
import { answerRead, NotModified, STOREFRONT_CACHED, UNCHANGED } from './storefront-cache.js';

const ADMIN_KEPT = "An admin's page is read with the catalog's version and kept under it: asked again while the catalog has not changed, it is answered from memory after one light statement (any change, made through any process, is in the next page).";
const SEARCH_ORDER = 'A search (q) keeps the order of the list: the newest products first by default, or the sort asked for; it pages by cursor like the list.';
const PRICED =
  "Prices are in the currency asked with `currency`, else the market's (`market` or X-Market, whose locale the texts take when none is asked), else the store's default: " +
  "in another currency each variant's price is its explicit one there, else the one derived by the store's rate and rounding, and a variant with neither is left out (not for sale in it). " +
  "Admin callers see each variant's explicit prices (`prices`).";

export async function productRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const products = container.resolve(Products);
  const cache = container.resolve(ReadCache);
  const fields = container.resolve(CustomFields);
  const tags = ['Products'];
  const show = (audience: CustomFieldAudience): ShowCustomFields => (entity, stored) => fields.present(entity, stored, audience);
  // Storefront answers (shared by every storefront caller in the read cache) show the public custom fields only.
  const shown = (activeOnly: boolean) => show(activeOnly ? 'storefront' : 'admin');
  const admin = show('admin');
  // Filters on the indexed custom fields of the product, and of one of its variants.
  const filterable = [{ entity: 'product' }, { entity: 'variant', prefix: 'variants.custom_fields' }];
  const listQuery = fields.listQuery(ProductListQuery, ...filterable);

  // Answered as PostgreSQL writes the page (`Products.listAnswer`); `test/products.test.ts` holds the answers to `ProductOut`.
  r.get('/catalog/products', {
    ...answerAsBuilt,
    config: { auth: STOREFRONT },
    preValidation: fields.filterGuard(...filterable),
    schema: { tags, summary: 'List products (newest first unless sorted otherwise, with or without q)', description: `${STOREFRONT_CACHED} ${ADMIN_KEPT} ${SEARCH_ORDER} ${PRICED}`, querystring: listQuery, response: { 200: listOf(ProductOut), 304: NotModified, ...errorResponses(400, 401, 403, 422) } },
  }, (req, reply) => answerRead(cache, req, reply, async (activeOnly, locale, priced, admin) => {
    const filter: ProductFilter = {
      ...(filtersOf(req.query) as ProductFilter),
      q: req.query.q,
      activeOnly,
      locale,
      priced,
      withPrices: !activeOnly,
      customFields: fields.filtersOf(req.query, 'product'),
      variantFields: fields.filtersOf(req.query, 'variant', 'variants.custom_fields'),
    };
    // An admin page is read with the catalog's version, and not written again while that is the kept answer's.
    const read = await products.listAnswer(req.query, filter, admin && { unless: admin.unless });
    if (read.version !== undefined) admin?.seen(read.version);
    if (read.unchanged) return UNCHANGED;
    const { items, pagination } = read;
    const show = shown(activeOnly);
    for (const item of items) {
      item.custom_fields = show('product', item.custom_fields);
      for (const variant of item.variants) {
        variant.custom_fields = show('variant', variant.custom_fields);
        // A store of one currency reads no explicit prices: its admin answer shows none.
        if (!activeOnly) (variant as { prices?: unknown }).prices ??= [];
      }
    }
    return { data: items, meta: { pagination } };
  }, { adminKept: true }));

  r.post('/catalog/products', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Create a product with its variants', body: ProductInput, response: { 201: dataOf(ProductOut), ...errorResponses(400, 401, 403, 409, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: productOut(await products.create(req.body), admin) }));

  r.get('/catalog/products/:id', {
    config: { auth: STOREFRONT },
    schema: { tags, summary: 'Read a product', description: `${STOREFRONT_CACHED} ${PRICED}`, params: IdParams, querystring: ProductReadQuery, response: { 200: dataOf(ProductOut), 304: NotModified, ...errorResponses(400, 401, 403, 404, 422) } },
  }, (req, reply) => answerRead(cache, req, reply, async (activeOnly, locale, priced) => ({ data: productOut(await products.get(req.params.id, { activeOnly, locale, priced, withPrices: !activeOnly }), shown(activeOnly)) })));

  r.get('/catalog/products/handle/:handle', {
    config: { auth: STOREFRONT },
    schema: {
      tags,
      summary: 'Read a product by its handle',
      description: `${STOREFRONT_CACHED} In a locale the handle is the product's handle there (its translation's) or its own. ${PRICED}`,
      params: HandleParams,
      querystring: ProductReadQuery,
      response: { 200: dataOf(ProductOut), 304: NotModified, ...errorResponses(400, 401, 403, 404, 422) },
    },
  }, (req, reply) => answerRead(cache, req, reply, async (activeOnly, locale, priced) => ({ data: productOut(await products.getByHandle(req.params.handle, { activeOnly, locale, priced, withPrices: !activeOnly }), shown(activeOnly)) })));

  r.patch('/catalog/products/:id', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Change the fields sent', params: IdParams, body: ProductPatch, response: { 200: dataOf(ProductOut), ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req) => ({ data: productOut(await products.update(req.params.id, req.body), admin) }));

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
  }, async (req, reply) => {
    const { variant, prices } = await products.addVariant(req.params.id, req.body);
    return reply.code(201).send({ data: variantOut(variant, admin, prices) });
  });

  r.patch('/catalog/products/:id/variants/:variant_id', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Change a variant', params: VariantParams, body: VariantPatch, response: { 200: dataOf(VariantOut), ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req) => {
    const { variant, prices } = await products.updateVariant(req.params.id, req.params.variant_id, req.body);
    return { data: variantOut(variant, admin, prices) };
  });

  r.delete('/catalog/products/:id/variants/:variant_id', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Delete a variant (a product keeps at least one)', params: VariantParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req, reply) => {
    await products.removeVariant(req.params.id, req.params.variant_id);
    return reply.code(204).send(null);
  });
}
