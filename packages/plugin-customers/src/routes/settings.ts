import { ADMIN, dataOf, errorResponses } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { StoreSettingsInput, StoreSettingsOut } from '../schemas/settings.js';
import { StoreSettings, type EffectiveSettings } from '../services/store-settings.js';

function settingsOut(s: EffectiveSettings) {
  return {
    registration: s.registration,
    registration_is_default: !s.own.registration,
    account_url: s.accountUrl,
    account_url_is_default: !s.own.accountUrl,
    link_ttl_hours: s.linkTtlHours,
    updated_at: s.updatedAt?.toISOString() ?? null,
  };
}

/** The store's customer-account settings (registered before /customers/:id: the static segment wins). */
export async function settingsRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const settings = container.resolve(StoreSettings);
  const tags = ['Customers'];

  r.get('/customers/settings', {
    config: { auth: ADMIN, permission: 'customers.read' },
    schema: { tags, summary: "The store's customer-account settings, as they apply", response: { 200: dataOf(StoreSettingsOut), ...errorResponses(400, 401, 403) } },
  }, async () => ({ data: settingsOut(await settings.get()) }));

  r.put('/customers/settings', {
    config: { auth: ADMIN, permission: 'customers.settings' },
    schema: {
      tags,
      summary: "Replace the store's customer-account settings (sign-up policy, account-link page); absent or null follows the platform",
      body: StoreSettingsInput,
      response: { 200: dataOf(StoreSettingsOut), ...errorResponses(400, 401, 403) },
    },
  }, async (req) => ({ data: settingsOut(await settings.replace(req.body)) }));
}
