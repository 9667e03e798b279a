import { dataOf, errorResponses } from '@qhatu/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { z } from 'zod';
import { BareNotificationParams, NotificationOut, NotificationParams } from '../schemas/gateway.js';
import { Gateways } from '../services/gateways.js';
import { Notifications } from '../services/notifications.js';

/**
 * POST /webhooks/:gateway (the specification's path: the store is found from the notification) and
 * POST /webhooks/:gateway/:tenant_id: no tenant auth, the gateway's signature is the credential.
 * The body stays the raw bytes (signatures are over them): this parser lives only in this scope.
 */
export async function notificationRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const notifications = container.resolve(Notifications);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_req, body, done) => done(null, body));
  const r = app.withTypeProvider<ZodTypeProvider>();

  const forAnyStore = async (gateway: string, req: FastifyRequest, reply: FastifyReply) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const query = new URLSearchParams(req.url.split('?')[1] ?? '');
    if (notifications.isCallback(gateway)) {
      const done = await notifications.callbackForAnyStore(gateway, raw, req.headers, query);
      if (done.redirect) return reply.redirect(done.redirect, 303);
      return { data: { received: true, outcome: done.outcome, payment_id: done.payment.id, status: done.payment.status } };
    }
    return { data: { received: true, outcome: await notifications.receiveForAnyStore(gateway, raw, req.headers, query) } };
  };
  const bare = {
    tags: ['Payments'],
    querystring: z.looseObject({ tenant: z.string().optional().meta({ description: "The store's id, as in the notification_url pasted into the provider's dashboard" }) }),
    response: { 200: dataOf(NotificationOut), 303: z.null().meta({ description: "A provider form's post back: on to the session's return_url" }), ...errorResponses(400, 401, 404, 409, 422, 502) },
  };
  // The specification's path of each installed gateway, e.g. POST /webhooks/stripe.
  for (const gateway of container.resolve(Gateways).all()) {
    r.post(`/${gateway.id}`, {
      config: { auth: 'public' },
      schema: {
        ...bare,
        summary: `A ${gateway.name} notification: the store is the address's \`tenant\` parameter (notification_url in GET /api/v1/payments/gateways) or the one whose payment it names; 401 unless that store's credentials verify the signature`,
      },
    }, (req, reply) => forAnyStore(gateway.id, req, reply));
  }
  // Any other gateway id: the same answers (404 for one that is not installed).
  r.post('/:gateway', {
    config: { auth: 'public' },
    schema: { ...bare, hide: true, params: BareNotificationParams },
  }, (req, reply) => forAnyStore(req.params.gateway, req, reply));

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
