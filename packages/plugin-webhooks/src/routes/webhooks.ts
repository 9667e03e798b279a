import { ADMIN, dataOf, errorResponses, IdParams, listOf, NoContent } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import type { Attempt, Delivery, DeliveryStatus } from '../entities/delivery.js';
import type { Subscription } from '../entities/subscription.js';
import {
  CreatedSubscriptionOut,
  DeliveryList,
  DeliveryOut,
  DeliveryParams,
  SubscriptionCreate,
  SubscriptionList,
  SubscriptionOut,
  SubscriptionPatch,
} from '../schemas/webhook.js';
import { Deliveries } from '../services/deliveries.js';
import { Subscriptions } from '../services/subscriptions.js';

const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;

export function subscriptionOut(s: Subscription) {
  return {
    id: s.id,
    url: s.url,
    events: s.events,
    description: s.description ?? null,
    enabled: s.enabled,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

export function deliveryOut(d: Delivery, attempts: Attempt[] = []) {
  return {
    id: d.id,
    subscription_id: d.subscriptionId,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    attempts: d.attempts,
    response_status: d.responseStatus ?? null,
    last_error: d.lastError ?? null,
    next_attempt_at: iso(d.nextAttemptAt),
    delivered_at: iso(d.deliveredAt),
    created_at: d.createdAt.toISOString(),
    attempt_log: attempts.map((a) => ({
      number: a.number,
      trigger: a.trigger,
      started_at: a.startedAt.toISOString(),
      duration_ms: a.durationMs,
      response_status: a.responseStatus ?? null,
      error: a.error ?? null,
    })),
  };
}

export async function webhookRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const subscriptions = container.resolve(Subscriptions);
  const deliveries = container.resolve(Deliveries);
  const tags = ['Webhooks'];
  const config = { auth: ADMIN };

  r.post('/webhooks', {
    config: { ...config, permission: 'webhooks.write' },
    schema: { tags, summary: 'Register a receiver (the secret is shown only here)', body: SubscriptionCreate, response: { 201: dataOf(CreatedSubscriptionOut), ...errorResponses(400, 401, 403) } },
  }, async (req, reply) => {
    const { subscription, secret } = await subscriptions.create(req.body);
    return reply.code(201).send({ data: { ...subscriptionOut(subscription), secret } });
  });

  r.get('/webhooks', {
    config: { ...config, permission: 'webhooks.read' },
    schema: { tags, summary: 'List receivers', querystring: SubscriptionList, response: { 200: listOf(SubscriptionOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await subscriptions.list(req.query);
    return { data: page.items.map(subscriptionOut), meta: { pagination: page.pagination } };
  });

  r.get('/webhooks/:id', {
    config: { ...config, permission: 'webhooks.read' },
    schema: { tags, summary: 'Read a receiver', params: IdParams, response: { 200: dataOf(SubscriptionOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: subscriptionOut(await subscriptions.get(req.params.id)) }));

  r.patch('/webhooks/:id', {
    config: { ...config, permission: 'webhooks.write' },
    schema: { tags, summary: 'Change a receiver (url, events, secret, description, enabled)', params: IdParams, body: SubscriptionPatch, response: { 200: dataOf(SubscriptionOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: subscriptionOut(await subscriptions.update(req.params.id, req.body)) }));

  r.delete('/webhooks/:id', {
    config: { ...config, permission: 'webhooks.write' },
    schema: { tags, summary: 'Remove a receiver and its deliveries', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await subscriptions.remove(req.params.id);
    return reply.code(204).send(null);
  });

  r.get('/webhooks/:id/deliveries', {
    config: { ...config, permission: 'webhooks.read' },
    schema: { tags, summary: "A receiver's deliveries, newest first, each with its attempts", params: IdParams, querystring: DeliveryList, response: { 200: listOf(DeliveryOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => {
    const status = req.query['filter[status]'] as DeliveryStatus | undefined;
    const page = await deliveries.list(req.params.id, req.query, status);
    const attempts = await deliveries.attempts(page.items.map((d) => d.id));
    return { data: page.items.map((d) => deliveryOut(d, attempts.get(d.id))), meta: { pagination: page.pagination } };
  });

  r.post('/webhooks/:id/deliveries/:deliveryId/retry', {
    config: { ...config, permission: 'webhooks.write' },
    schema: { tags, summary: 'Resend a failed or dead delivery now, with its original body and signature', params: DeliveryParams, response: { 200: dataOf(DeliveryOut), ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req) => {
    const delivery = await deliveries.retry(req.params.id, req.params.deliveryId);
    const attempts = await deliveries.attempts([delivery.id]);
    return { data: deliveryOut(delivery, attempts.get(delivery.id)) };
  });
}
