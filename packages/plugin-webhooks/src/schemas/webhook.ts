import { listQuery, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { DELIVERY_STATUSES } from '../entities/delivery.js';

const Url = z
  .url({ protocol: /^https?$/, message: 'must be an http(s) URL' })
  .max(2048)
  .meta({ example: 'https://hooks.example.com/qhatu' });
const Secret = z
  .string()
  .min(16, 'must be at least 16 characters')
  .max(256)
  .refine((s) => !s.startsWith('whsec_') || /^whsec_[A-Za-z0-9+/]{16,}={0,2}$/.test(s), 'a whsec_ secret must be base64 after the prefix')
  .meta({ description: 'The signing key; a whsec_ secret is base64 after the prefix (Standard Webhooks). Generated when absent.' });
const Events = z.array(z.string().min(1).max(200)).min(1, 'name at least one event type').max(100);

export const SubscriptionCreate = z
  .strictObject({
    url: Url,
    events: Events,
    secret: Secret.optional(),
    description: z.string().max(500).nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .meta({ id: 'WebhookSubscriptionCreate' });

export const SubscriptionPatch = SubscriptionCreate.partial().meta({ id: 'WebhookSubscriptionPatch' });

export const SubscriptionOut = z
  .object({
    id: z.uuid(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    enabled: z.boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'WebhookSubscription' });

export const CreatedSubscriptionOut = SubscriptionOut.extend({
  secret: z.string().meta({ description: 'Shown only in this answer' }),
}).meta({ id: 'WebhookSubscriptionCreated' });

export const AttemptOut = z.object({
  number: z.number().int(),
  trigger: z.enum(['automatic', 'manual']),
  started_at: Timestamp,
  duration_ms: z.number().int(),
  response_status: z.number().int().nullable(),
  error: z.string().nullable(),
});

export const DeliveryOut = z
  .object({
    id: z.uuid(),
    subscription_id: z.uuid(),
    event_id: z.uuid(),
    event_type: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    response_status: z.number().int().nullable(),
    last_error: z.string().nullable(),
    next_attempt_at: Timestamp.nullable(),
    delivered_at: Timestamp.nullable(),
    created_at: Timestamp,
    attempt_log: z.array(AttemptOut),
  })
  .meta({ id: 'WebhookDelivery' });

export const SubscriptionList = listQuery({ sorts: ['created_at'], defaultSort: '-created_at' });
export const DeliveryList = listQuery({
  sorts: ['created_at'],
  defaultSort: '-created_at',
  filters: { status: z.enum(DELIVERY_STATUSES) },
});
export const DeliveryParams = z.object({ id: Uuid, deliveryId: Uuid });
