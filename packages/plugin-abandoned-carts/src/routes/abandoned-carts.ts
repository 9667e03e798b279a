import { ADMIN, dataOf, errorResponses } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { CartOut, cartOut } from '@qhatu/plugin-checkout';
import { AbandonedCartList, AbandonedCartListQuery, AbandonedCartOut, AbandonedCartParams, RestoreQuery } from '../schemas/abandoned-cart.js';
import { AbandonedCarts } from '../services/abandoned-carts.js';
import { CartRecovery } from '../services/cart-recovery.js';
import { RESTORE_PATH } from '../services/settings.js';
import { abandonedCartOut } from '../services/views.js';

/** Mounted with `prefix: ''`: the specification puts the admin routes under `/admin`. */
export async function abandonedCartRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const carts = container.resolve(AbandonedCarts);
  const recovery = container.resolve(CartRecovery);
  const tags = ['Abandoned carts'];
  const config = { auth: ADMIN };

  r.get('/admin/abandoned-carts', {
    config: { ...config, permission: 'abandoned-carts.read' },
    schema: {
      tags,
      summary: 'List abandoned carts (offset pagination) with the store-wide metrics',
      querystring: AbandonedCartListQuery,
      response: { 200: AbandonedCartList, ...errorResponses(400, 401, 403) },
    },
  }, async (req) => {
    const page = await carts.list(req.query);
    return {
      data: page.items.map(abandonedCartOut),
      metrics: page.metrics,
      meta: { pagination: { limit: req.query.limit, offset: req.query.offset, total: page.total, has_next: req.query.offset + page.items.length < page.total } },
    };
  });

  r.get(RESTORE_PATH, {
    // The token is the credential: a link in an e-mail carries no API key nor tenant header.
    config: { auth: 'public' },
    schema: {
      tags,
      summary: "Open a recovery link: the shopper's cart, ready to go on with (a new cart when the old one was frozen by its abandoned checkout)",
      querystring: RestoreQuery,
      response: { 200: dataOf(CartOut), ...errorResponses(400, 403, 404, 410) },
    },
  }, async (req) => ({ data: cartOut(await recovery.restore(req.query.token)) }));

  r.post('/admin/abandoned-carts/:id/send-reminder', {
    config: { ...config, permission: 'abandoned-carts.write' },
    schema: {
      tags,
      summary: 'E-mail the shopper a recovery link; the cart becomes reminded (409 REMINDER_ALREADY_SENT within the reminder interval of the last one)',
      params: AbandonedCartParams,
      response: { 200: dataOf(AbandonedCartOut), ...errorResponses(400, 401, 403, 404, 409, 410, 422, 502) },
    },
  }, async (req) => ({ data: abandonedCartOut(await carts.sendReminder(req.params.id)) }));

  r.post('/admin/abandoned-carts/:id/recover', {
    config: { ...config, permission: 'abandoned-carts.write' },
    schema: {
      tags,
      summary: 'Mark the cart recovered',
      params: AbandonedCartParams,
      response: { 200: dataOf(AbandonedCartOut), ...errorResponses(400, 401, 403, 404, 409) },
    },
  }, async (req) => ({ data: abandonedCartOut(await carts.recover(req.params.id)) }));
}
