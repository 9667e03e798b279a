import { ADMIN, dataOf, errorResponses } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { OrderSettingsOut, OrderSettingsReplace } from '../schemas/settings.js';
import { StoreOrderSettings, type OrderSettingsView } from '../services/settings.js';

function settingsOut(s: OrderSettingsView) {
  return { stock_policy: s.stockPolicy, stock_policy_is_default: s.isDefault, updated_at: s.updatedAt?.toISOString() ?? null };
}

/** The store's order settings (the static segment wins over /orders/:id). */
export async function orderSettingsRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const settings = container.resolve(StoreOrderSettings);
  const tags = ['Orders'];
  const response = { 200: dataOf(OrderSettingsOut), ...errorResponses(400, 401, 403) };

  r.get('/orders/settings', {
    config: { auth: ADMIN, permission: 'orders.read' },
    schema: { tags, summary: "The store's order settings", response },
  }, async () => ({ data: settingsOut(await settings.get()) }));

  r.put('/orders/settings', {
    config: { auth: ADMIN, permission: 'orders.write' },
    schema: { tags, summary: "Replace the store's order settings (what happens to a paid order that cannot get its stock)", body: OrderSettingsReplace, response },
  }, async (req) => ({ data: settingsOut(await settings.replace(req.body)) }));
}
