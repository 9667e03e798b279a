import { ADMIN, dataOf, errorResponses, filtersOf, IdParams, listOf, pageQuery, STOREFRONT } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { z } from 'zod';
import { ActivateOut, CatalogListQuery, CatalogThemeInput, CatalogThemeOut, InstalledThemeOut, LiveThemeOut, PurchaseOut } from '../schemas/theme-store.js';
import { ThemeCatalog } from '../services/catalog.js';
import { LiveThemes } from '../services/live-theme.js';
import { StoreThemes } from '../services/store-themes.js';
import { catalogThemeOut, installedThemeOut, liveThemeOut, purchaseOut } from './serialize.js';

/** The theme store under `/api/v1/theme-store`, and the storefront's read of the live theme. */
export async function themeStoreRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const catalog = container.resolve(ThemeCatalog);
  const themes = container.resolve(StoreThemes);
  const live = container.resolve(LiveThemes);
  const tags = ['Theme store'];
  const base = '/api/v1/theme-store';

  r.post(base, {
    config: { auth: 'platform' },
    schema: { tags, summary: 'Add a theme to the platform catalog (platform credential)', body: CatalogThemeInput, response: { 201: dataOf(CatalogThemeOut), ...errorResponses(400, 401, 403, 409, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: catalogThemeOut(await catalog.create(req.body)) }));

  r.get(base, {
    config: { auth: ADMIN, permission: 'themes.read' },
    schema: { tags, summary: 'List the themes of the catalog', querystring: CatalogListQuery, response: { 200: listOf(CatalogThemeOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await catalog.list(req.query, filtersOf(req.query) as { is_free?: boolean; tag?: string });
    return { data: page.items.map(catalogThemeOut), meta: { pagination: page.pagination } };
  });

  r.get(`${base}/installed`, {
    config: { auth: ADMIN, permission: 'themes.read' },
    schema: { tags, summary: 'List the themes installed in the store', querystring: pageQuery(), response: { 200: listOf(InstalledThemeOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await themes.installed({ ...req.query, sort: 'installed_at' });
    return { data: page.items.map(installedThemeOut), meta: { pagination: page.pagination } };
  });

  r.get(`${base}/:id`, {
    config: { auth: ADMIN, permission: 'themes.read' },
    schema: { tags, summary: 'Read a theme of the catalog', params: IdParams, response: { 200: dataOf(CatalogThemeOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: catalogThemeOut(await catalog.get(req.params.id)) }));

  r.post(`${base}/:id/purchase`, {
    config: { auth: ADMIN, permission: 'themes.purchase' },
    schema: { tags, summary: 'Purchase a paid theme for the store', params: IdParams, response: { 201: dataOf(PurchaseOut), ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: purchaseOut(await themes.purchase(req.params.id)) }));

  r.post(`${base}/:id/install`, {
    config: { auth: ADMIN, permission: 'themes.write' },
    schema: { tags, summary: 'Install a theme (inactive); a paid theme must have been purchased', params: IdParams, response: { 201: dataOf(InstalledThemeOut), ...errorResponses(400, 401, 402, 403, 404, 409) } },
  }, async (req, reply) => reply.code(201).send({ data: installedThemeOut(await themes.install(req.params.id)) }));

  r.post(`${base}/:id/activate`, {
    config: { auth: ADMIN, permission: 'themes.publish' },
    schema: {
      tags,
      summary: 'Make an installed theme (by its catalog id) the active one; the previous one becomes inactive',
      params: IdParams,
      response: { 200: dataOf(ActivateOut), ...errorResponses(400, 401, 403, 404) },
    },
  }, async (req) => {
    const { installedThemeId } = await themes.activate(req.params.id);
    return { data: { status: 'activated' as const, theme_catalog_id: req.params.id, installed_theme_id: installedThemeId } };
  });

  r.get('/api/v1/theme', {
    config: { auth: STOREFRONT },
    schema: {
      tags,
      summary: 'The live theme: the active theme and its published settings (never the draft)',
      querystring: z.strictObject({}),
      response: { 200: dataOf(LiveThemeOut), ...errorResponses(400, 401, 403, 404) },
    },
  }, async () => ({ data: liveThemeOut(await live.current()) }));
}
