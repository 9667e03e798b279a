import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AccessToken, Tenant } from '../db/entities.js';
import { TENANT_STATUSES } from '../db/entities.js';
import { filtersOf, listQuery } from '../http/pagination.js';
import { dataOf, errorResponses, IdParams, listOf, NoContent, Uuid } from '../http/schemas.js';
import { ApiKeyInput, ApiKeyOut, ApiKeySummary, TenantInput, TenantOut, TenantReplace } from './schemas.js';
import { Tenants } from './tenants.js';

export function tenantOut(t: Tenant) {
  return {
    id: t.id,
    name: t.name,
    slug: t.slug,
    status: t.status,
    currency: t.currency,
    default_locale: t.defaultLocale,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}

export function apiKeyOut(record: AccessToken, token: string) {
  return {
    id: record.id,
    name: record.name ?? '',
    scope: record.kind as 'admin' | 'storefront',
    token,
    role_id: record.roleId ?? null,
    expires_at: record.expiresAt?.toISOString() ?? null,
    created_at: record.createdAt.toISOString(),
  };
}

export function apiKeySummary(record: AccessToken) {
  return {
    id: record.id,
    name: record.name ?? '',
    scope: record.kind as 'admin' | 'storefront',
    token_prefix: record.tokenPrefix,
    role_id: record.roleId ?? null,
    expires_at: record.expiresAt?.toISOString() ?? null,
    revoked_at: record.revokedAt?.toISOString() ?? null,
    created_at: record.createdAt.toISOString(),
  };
}

const ApiKeyList = listQuery({ sorts: ['created_at'], defaultSort: '-created_at' });

const TenantList = listQuery({
  filters: { status: z.enum(TENANT_STATUSES) },
  sorts: ['created_at', 'name', 'slug'],
  defaultSort: '-created_at',
  search: true,
});

/** Platform-level tenant administration: the operator's credential, no tenant header. */
export async function tenantRoutes(app: FastifyInstance, tenants: Tenants): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['Tenants'];
  const config = { auth: 'platform' as const };

  r.post('/tenants', {
    config,
    schema: { tags, summary: 'Create a tenant (a store)', body: TenantInput, response: { 201: dataOf(TenantOut), ...errorResponses(400, 401, 403, 409) } },
  }, async (req, reply) => reply.code(201).send({ data: tenantOut(await tenants.create(req.body)) }));

  r.get('/tenants', {
    config,
    schema: { tags, summary: 'List tenants', querystring: TenantList, response: { 200: listOf(TenantOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const f = filtersOf(req.query) as { status?: Tenant['status'] };
    const page = await tenants.list(req.query, { status: f.status, q: req.query.q });
    return { data: page.items.map(tenantOut), meta: { pagination: page.pagination } };
  });

  r.get('/tenants/:id', {
    config,
    schema: { tags, summary: 'Read a tenant', params: IdParams, response: { 200: dataOf(TenantOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: tenantOut(await tenants.get(req.params.id)) }));

  r.put('/tenants/:id', {
    config,
    schema: {
      tags,
      summary: 'Replace a tenant’s settings',
      description: "A new default_locale takes the old default off the store's locales: 409 LOCALE_IN_USE while a market reads in it (change the market first).",
      params: IdParams,
      body: TenantReplace,
      response: { 200: dataOf(TenantOut), ...errorResponses(400, 401, 403, 404, 409) },
    },
  }, async (req) => ({ data: tenantOut(await tenants.replace(req.params.id, req.body)) }));

  for (const action of ['suspend', 'activate'] as const) {
    r.post(`/tenants/:id/${action}`, {
      config,
      schema: {
        tags,
        summary: action === 'suspend' ? 'Suspend a tenant: its API answers 403 TENANT_SUSPENDED' : 'Activate a tenant',
        params: IdParams,
        response: { 200: dataOf(TenantOut), ...errorResponses(400, 401, 403, 404, 409) },
      },
    }, async (req) => ({ data: tenantOut(await tenants.move(req.params.id, action)) }));
  }

  r.post('/tenants/:id/api-keys', {
    config,
    schema: { tags, summary: 'Issue an API key for a tenant (the token is shown once)', params: IdParams, body: ApiKeyInput, response: { 201: dataOf(ApiKeyOut), ...errorResponses(400, 401, 403, 404, 422) } },
  }, async (req, reply) => {
    const { token, record } = await tenants.issueApiKey(req.params.id, {
      name: req.body.name,
      scope: req.body.scope,
      expiresAt: req.body.expires_at ? new Date(req.body.expires_at) : null,
      roleId: req.body.role_id ?? null,
    });
    return reply.code(201).send({ data: apiKeyOut(record, token) });
  });

  r.get('/tenants/:id/api-keys', {
    config,
    schema: { tags, summary: "List a tenant's API keys (never their tokens)", params: IdParams, querystring: ApiKeyList, response: { 200: listOf(ApiKeySummary), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => {
    const page = await tenants.listApiKeys(req.params.id, req.query);
    return { data: page.items.map(apiKeySummary), meta: { pagination: page.pagination } };
  });

  r.delete('/tenants/:id/api-keys/:key_id', {
    config,
    schema: { tags, summary: 'Revoke an API key', params: z.object({ id: Uuid, key_id: Uuid }), response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await tenants.revokeApiKey(req.params.id, req.params.key_id);
    return reply.code(204).send(null);
  });
}
