import { dataOf, errorResponses } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
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
      summary: "A gateway's notification for one store; verified by the gateway's signature before anything is read",
      params: NotificationParams,
      response: { 200: dataOf(NotificationOut), ...errorResponses(400, 401, 404, 502) },
    },
  }, async (req) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const query = new URLSearchParams(req.url.split('?')[1] ?? '');
    const outcome = await notifications.receive(req.params.gateway, req.params.tenant_id, raw, req.headers, query);
    return { data: { received: true, outcome } };
  });
}
