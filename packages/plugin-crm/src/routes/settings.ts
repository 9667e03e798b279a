import { ADMIN, dataOf, errorResponses } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { SettingsInput, SettingsOut } from '../schemas/settings.js';
import { CrmSettingsService } from '../services/settings.js';

export async function settingsRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const settings = container.resolve(CrmSettingsService);
  const settingsOut = (s: { sqlThreshold: number; updatedAt: Date | null }) => ({ sql_threshold: s.sqlThreshold, updated_at: s.updatedAt?.toISOString() ?? null });

  r.get('/crm/settings', {
    config: { auth: ADMIN, permission: 'crm.leads.read' },
    schema: { tags: ['CRM settings'], summary: "The store's CRM settings", response: { 200: dataOf(SettingsOut), ...errorResponses(400, 401, 403) } },
  }, async () => ({ data: settingsOut(await settings.read()) }));

  r.put('/crm/settings', {
    config: { auth: ADMIN, permission: 'crm.settings.write' },
    schema: { tags: ['CRM settings'], summary: 'Set the score at which qualify makes a lead sql', body: SettingsInput, response: { 200: dataOf(SettingsOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => ({ data: settingsOut(await settings.update(req.body)) }));
}
