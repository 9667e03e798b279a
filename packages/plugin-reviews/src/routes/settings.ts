import { ADMIN, dataOf, errorResponses, IdParams, NoContent } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { z } from 'zod';
import { renderReviewSettingsPanel } from '../panel/review-settings-panel.js';
import { OverrideParams, PanelQuery, ProductReviewSettingsOut, ReviewSettingsOut, SettingChange } from '../schemas/settings.js';
import { ReviewSettingsService } from '../services/settings.js';
import { productSettingsOut } from './serialize.js';

/** The store's review settings and each product's overrides (admin keys). */
export async function reviewSettingRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const settings = container.resolve(ReviewSettingsService);
  const tags = ['Reviews'];
  const read = { auth: ADMIN, permission: 'reviews.read' };
  const configure = { auth: ADMIN, permission: 'reviews.configure' };
  const product = { 200: dataOf(ProductReviewSettingsOut), ...errorResponses(400, 401, 403, 404) };

  r.get('/admin/settings/reviews', {
    config: read,
    schema: { tags, summary: "The store's review settings", response: { 200: dataOf(ReviewSettingsOut), ...errorResponses(400, 401, 403) } },
  }, async () => ({ data: await settings.store() }));

  r.post('/admin/settings/reviews', {
    config: configure,
    schema: { tags, summary: 'Change one of the store\'s review settings ({field, value}, the value as a string)', body: SettingChange, response: { 200: dataOf(ReviewSettingsOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => ({ data: await settings.setStore(req.body.field, req.body.value) }));

  r.get('/admin/catalog/products/:id/review-settings', {
    config: read,
    schema: { tags, summary: "A product's review settings: what applies and what it overrides", params: IdParams, response: product },
  }, async (req) => ({ data: productSettingsOut(await settings.product(req.params.id)) }));

  r.post('/admin/catalog/products/:id/review-settings', {
    config: configure,
    schema: { tags, summary: "Override one of the store's review settings for this product ({field, value})", params: IdParams, body: SettingChange, response: product },
  }, async (req) => ({ data: productSettingsOut(await settings.setProduct(req.params.id, req.body.field, req.body.value)) }));

  r.delete('/admin/catalog/products/:id/review-settings/:field', {
    config: configure,
    schema: { tags, summary: "Remove a product's override: the store's setting applies again", params: OverrideParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await settings.removeProductOverride(req.params.id, req.params.field);
    return reply.code(204).send(null);
  });

  r.get('/admin/catalog/products/:id/review-settings-panel', {
    config: read,
    schema: {
      tags,
      summary: "An HTML fragment for an admin UI: the product's review settings and a form to change them",
      params: IdParams,
      querystring: PanelQuery,
      response: {
        200: {
          description: 'A <section> with an inline script that asks the host page for its request headers',
          content: { 'text/html': { schema: z.string() } },
        },
        ...errorResponses(400, 401, 403, 404),
      },
    },
  }, async (req, reply) => {
    const html = renderReviewSettingsPanel(await settings.product(req.params.id), { nonce: req.query.nonce });
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').header('x-content-type-options', 'nosniff').send(html);
  });
}
