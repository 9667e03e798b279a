import { ADMIN, dataOf, errorResponses, filtersOf, IdParams, listOf } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { AdjustmentListQuery, StockAdjust, StockAdjustmentOut, StockLevelOut, StockListQuery } from '../schemas/stock.js';
import { Stock, type AdjustmentFilter } from '../services/stock.js';
import { adjustmentOut, stockLevelOut } from './serialize.js';

export async function stockRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const stock = container.resolve(Stock);
  const tags = ['Inventory'];
  const config = { auth: ADMIN };

  r.post('/inventory/warehouses/:id/stock/adjust', {
    config: { ...config, permission: 'inventory.write' },
    schema: {
      tags,
      summary: 'Add or remove units of a variant (audited); never below what is available',
      params: IdParams,
      body: StockAdjust,
      response: { 200: dataOf(StockAdjustmentOut), ...errorResponses(400, 401, 403, 404, 409, 422) },
    },
  }, async (req) => ({ data: adjustmentOut(await stock.adjust(req.params.id, req.body)) }));

  r.get('/inventory/warehouses/:id/stock', {
    config: { ...config, permission: 'inventory.read' },
    schema: { tags, summary: "A warehouse's stock records, page by page", params: IdParams, querystring: StockListQuery, response: { 200: listOf(StockLevelOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => {
    const { items, page } = await stock.levels(req.params.id, req.query, filtersOf(req.query) as { variant_id?: string });
    return { data: items.map(stockLevelOut), meta: { pagination: page.pagination } };
  });

  r.get('/inventory/warehouses/:id/adjustments', {
    config: { ...config, permission: 'inventory.read' },
    schema: { tags, summary: "A warehouse's adjustment trail, newest first", params: IdParams, querystring: AdjustmentListQuery, response: { 200: listOf(StockAdjustmentOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => {
    const page = await stock.adjustments(req.params.id, req.query, filtersOf(req.query) as AdjustmentFilter);
    return { data: page.items.map(adjustmentOut), meta: { pagination: page.pagination } };
  });
}
