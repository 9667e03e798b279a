import { ADMIN, askedMarket, CONFIG, dataOf, errorResponses, requestMarket, STOREFRONT, TenantContext, type QhatuConfig } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { z } from 'zod';
import { GatewayListQuery, GatewayOut, GatewayParams, GatewaySettingUpdate } from '../schemas/gateway.js';
import { GatewaySettings } from '../services/gateway-settings.js';
import { Gateways } from '../services/gateways.js';
import { gatewayOut } from './serialize.js';

export async function gatewayRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const gateways = container.resolve(Gateways);
  const settings = container.resolve(GatewaySettings);
  const tags = ['Payments'];
  const publicUrl = container.resolve<QhatuConfig>(CONFIG).publicUrl;
  // The specification's path; the store is named in the query, so one address serves every store's dashboard.
  const notificationUrl = (id: string) => `${publicUrl}/webhooks/${id}?tenant=${TenantContext.tenantId()}`;

  r.get('/payments/gateways', {
    config: { auth: STOREFRONT },
    schema: {
      tags,
      summary: 'The installed gateways, their fields and whether this store configured them',
      description: 'A checkout offers the gateways that take its currency: `currency` (or a market, by `market` or the X-Market header) lists only those.',
      querystring: GatewayListQuery,
      response: { 200: dataOf(z.array(GatewayOut)), ...errorResponses(400, 401, 403, 422) },
    },
  }, async (req) => {
    // The store's currencies and markets ride on the token: filtering costs no statement.
    const currency = req.query.currency !== undefined || askedMarket(req) ? requestMarket(req).currency : null;
    const stored = await settings.list();
    return { data: (currency ? gateways.taking(currency) : gateways.all()).map((g) => gatewayOut(g, stored.get(g.id), notificationUrl(g.id))) };
  });

  r.get('/payments/gateways/:id', {
    config: { auth: ADMIN, permission: 'payments.read' },
    schema: { tags, summary: "One gateway and this store's settings (secrets are never returned)", params: GatewayParams, response: { 200: dataOf(GatewayOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: gatewayOut(gateways.get(req.params.id), await settings.get(req.params.id), notificationUrl(req.params.id)) }));

  r.put('/payments/gateways/:id', {
    config: { auth: ADMIN, permission: 'payments.configure' },
    schema: { tags, summary: "Set this store's credentials (sealed at rest) and switch the gateway on or off", params: GatewayParams, body: GatewaySettingUpdate, response: { 200: dataOf(GatewayOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: gatewayOut(gateways.get(req.params.id), await settings.configure(req.params.id, req.body), notificationUrl(req.params.id)) }));
}
