import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { z } from 'zod';
import { TenantContext } from '../context.js';
import { listQuery } from '../http/pagination.js';
import { ADMIN } from '../http/route-config.js';
import { dataOf, errorResponses, IdParams, listOf, NoContent } from '../http/schemas.js';
import { apiKeyOut, apiKeySummary, tenantOut } from './routes.js';
import { ApiKeyInput, ApiKeyOut, ApiKeySummary, TenantOut } from './schemas.js';
import { StoreSettings } from './store-settings.js';

const StoreUpdate = z
  .strictObject({ name: z.string().trim().min(1, 'must not be empty').max(200) })
  .meta({ id: 'StoreUpdate', description: "The settings a store's staff may change; the currency and the slug are the platform's" });

const KeyList = listQuery({ sorts: ['created_at'], defaultSort: '-created_at' });

/**
 * The store's settings and API keys for its own staff (decision 0095): the platform's routes of
 * `/tenants/:id`, with the store taken from the caller's token instead of the path.
 */
export async function storeRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const store = container.resolve(StoreSettings);
  const tags = ['Store'];

  r.get('/store', {
    config: { auth: ADMIN, permission: 'store.read' },
    schema: { tags, summary: "Read the caller's store: its name, currency and locale", response: { 200: dataOf(TenantOut), ...errorResponses(400, 401, 403) } },
  }, async () => ({ data: tenantOut(await store.get(TenantContext.tenantId())) }));

  r.patch('/store', {
    config: { auth: ADMIN, permission: 'store.manage' },
    schema: {
      tags,
      summary: "Rename the caller's store",
      description: 'Only the name: the currency is the one its prices, orders and balances are kept in, and the locales have `PUT /locales`.',
      body: StoreUpdate,
      response: { 200: dataOf(TenantOut), ...errorResponses(400, 401, 403) },
    },
  }, async (req) => ({ data: tenantOut(await store.rename(TenantContext.tenantId(), req.body.name)) }));

  r.get('/api-keys', {
    config: { auth: ADMIN, permission: 'store.read' },
    schema: { tags, summary: "List the store's API keys (never their tokens)", querystring: KeyList, response: { 200: listOf(ApiKeySummary), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await store.listKeys(TenantContext.tenantId(), req.query);
    return { data: page.items.map(apiKeySummary), meta: { pagination: page.pagination } };
  });

  r.post('/api-keys', {
    config: { auth: ADMIN, permission: 'store.manage' },
    schema: {
      tags,
      summary: 'Issue an API key for the store (the token is shown once)',
      description: 'A member whose role lacks some permission gives an admin key one of the store’s roles whose permissions are all the member’s own.',
      body: ApiKeyInput,
      response: { 201: dataOf(ApiKeyOut), ...errorResponses(400, 401, 403, 422) },
    },
  }, async (req, reply) => {
    const { token, record } = await store.issueKey(TenantContext.tenantId(), TenantContext.principal(), {
      name: req.body.name,
      scope: req.body.scope,
      expiresAt: req.body.expires_at ? new Date(req.body.expires_at) : null,
      roleId: req.body.role_id ?? null,
    });
    return reply.code(201).send({ data: apiKeyOut(record, token) });
  });

  r.delete('/api-keys/:id', {
    config: { auth: ADMIN, permission: 'store.manage' },
    schema: { tags, summary: 'Revoke one of the store’s API keys, at once', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await store.revokeKey(TenantContext.tenantId(), req.params.id);
    return reply.code(204).send(null);
  });
}
