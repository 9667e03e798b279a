import { dataOf, errorResponses } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { z } from 'zod';
import { NotificationOut, NotificationParams } from '../schemas/gateway.js';
import { Notifications } from '../services/notifications.js';

/**
 * POST /webhooks/:gateway/:tenant_id: no tenant auth, the gateway's signature is the credential.
 * The body stays the raw bytes (signatures are over them): this parser lives only in this scope.
 */
export async function notificationRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const notifications = container.resolve(Notifications);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_req, body, done) => done(null, body));
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post('/:gateway/:tenant_id', {
    config: { auth: 'public' },
    schema: {
      tags: ['Payments'],
      summary: "A gateway's notification for one store, verified by the gateway's signature before anything is read; for Niubiz, its checkout form's post back (303 to the session's return_url)",
      params: NotificationParams,
      response: { 200: dataOf(NotificationOut), 303: z.null().meta({ description: "A provider form's post back: on to the session's return_url" }), ...errorResponses(400, 401, 404, 409, 422, 502) },
    },
  }, async (req, reply) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const query = new URLSearchParams(req.url.split('?')[1] ?? '');
    if (notifications.isCallback(req.params.gateway)) {
      // The provider's browser form posting back: the shopper's browser goes on to the store.
      const done = await notifications.callback(req.params.gateway, req.params.tenant_id, raw, req.headers, query);
      if (done.redirect) return reply.redirect(done.redirect, 303);
      return { data: { received: true, outcome: done.outcome, payment_id: done.payment.id, status: done.payment.status } };
    }
    const outcome = await notifications.receive(req.params.gateway, req.params.tenant_id, raw, req.headers, query);
    return { data: { received: true, outcome } };
  });
}
