import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const TENANT_STATUSES = ['active', 'suspended', 'trial', 'expired'] as const;
export type TenantStatus = (typeof TENANT_STATUSES)[number];

export const Tenant = defineEntity({
  name: 'Tenant',
  tableName: 'core_tenant',
  properties: {
    id: p.uuid().primary(),
    name: p.string(),
    slug: p.string(),
    status: p.string().$type<TenantStatus>(),
    currency: p.string(),
    defaultLocale: p.string(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Tenant = InferEntity<typeof Tenant>;

export const ACCESS_TOKEN_KINDS = ['admin', 'storefront', 'customer', 'vendor'] as const;

export const AccessToken = defineEntity({
  name: 'AccessToken',
  tableName: 'core_access_token',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    kind: p.string().$type<(typeof ACCESS_TOKEN_KINDS)[number]>(),
    name: p.string().nullable(),
    tokenHash: p.string(),
    tokenPrefix: p.string(),
    subjectId: p.uuid().nullable(),
    expiresAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});
export type AccessToken = InferEntity<typeof AccessToken>;

export const OutboxEvent = defineEntity({
  name: 'OutboxEvent',
  tableName: 'core_outbox',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    type: p.string(),
    source: p.string(),
    data: p.json<Record<string, unknown>>(),
    occurredAt: p.datetime(),
    publishedAt: p.datetime().nullable(),
  },
});
export type OutboxEvent = InferEntity<typeof OutboxEvent>;

export const coreEntities = [Tenant, AccessToken, OutboxEvent];
