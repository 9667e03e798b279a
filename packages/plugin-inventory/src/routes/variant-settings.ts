import { ADMIN, dataOf, errorResponses, filtersOf, IdParams, listOf } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { VariantSettingListQuery, VariantSettingOut, VariantSettingReplace } from '../schemas/variant-setting.js';
import { VariantSettings, type VariantSettingFilter } from '../services/variant-settings.js';
import { variantSettingOut } from './serialize.js';

/** Whether the store keeps each variant's stock and sells it short (decision 0054); `:id` is the variant's. */
export async function variantSettingRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const settings = container.resolve(VariantSettings);
  const tags = ['Inventory'];

  r.get('/inventory/variant-settings', {
    config: { auth: ADMIN, permission: 'inventory.read' },
    schema: { tags, summary: 'The variants the store gave a stock setting, page by page', querystring: VariantSettingListQuery, response: { 200: listOf(VariantSettingOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const { views, page } = await settings.list(req.query, filtersOf(req.query) as VariantSettingFilter);
    return { data: views.map(variantSettingOut), meta: { pagination: page.pagination } };
  });

  r.get('/inventory/variant-settings/:id', {
    config: { auth: ADMIN, permission: 'inventory.read' },
    schema: { tags, summary: "A variant's stock setting as it applies (the defaults when never set)", params: IdParams, response: { 200: dataOf(VariantSettingOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: variantSettingOut(await settings.get(req.params.id)) }));

  r.put('/inventory/variant-settings/:id', {
    config: { auth: ADMIN, permission: 'inventory.write' },
    schema: {
      tags,
      summary: "Replace a variant's stock setting: tracked or not, backorders allowed or not",
      params: IdParams,
      body: VariantSettingReplace,
      response: { 200: dataOf(VariantSettingOut), ...errorResponses(400, 401, 403, 404) },
    },
  }, async (req) => ({ data: variantSettingOut(await settings.replace(req.params.id, req.body)) }));
}
