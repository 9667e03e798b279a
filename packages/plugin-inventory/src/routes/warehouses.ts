import { ADMIN, dataOf, errorResponses, filtersOf, IdParams, listOf, NoContent } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { WarehouseCreate, WarehouseDetailOut, WarehouseListQuery, WarehouseOut } from '../schemas/warehouse.js';
import { Warehouses, type WarehouseFilter } from '../services/warehouses.js';
import { warehouseDetailOut, warehouseOut } from './serialize.js';

export async function warehouseRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const warehouses = container.resolve(Warehouses);
  const tags = ['Inventory'];
  const config = { auth: ADMIN };

  r.get('/inventory/warehouses', {
    config: { ...config, permission: 'inventory.read' },
    schema: { tags, summary: 'List warehouses (q searches names and codes)', querystring: WarehouseListQuery, response: { 200: listOf(WarehouseOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await warehouses.list(req.query, { ...(filtersOf(req.query) as WarehouseFilter), q: req.query.q });
    return { data: page.items.map(warehouseOut), meta: { pagination: page.pagination } };
  });

  r.post('/inventory/warehouses', {
    config: { ...config, permission: 'inventory.write' },
    schema: { tags, summary: 'Create a warehouse (the first one is the default)', body: WarehouseCreate, response: { 201: dataOf(WarehouseOut), ...errorResponses(400, 401, 403, 409) } },
  }, async (req, reply) => reply.code(201).send({ data: warehouseOut(await warehouses.create(req.body)) }));

  r.get('/inventory/warehouses/:id', {
    config: { ...config, permission: 'inventory.read' },
    schema: { tags, summary: 'Read a warehouse with its stock per variant', params: IdParams, response: { 200: dataOf(WarehouseDetailOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: warehouseDetailOut(await warehouses.get(req.params.id)) }));

  r.put('/inventory/warehouses/:id', {
    config: { ...config, permission: 'inventory.write' },
    schema: { tags, summary: 'Replace a warehouse (the create fields; absent is_default keeps it)', params: IdParams, body: WarehouseCreate, response: { 200: dataOf(WarehouseDetailOut), ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req) => ({ data: warehouseDetailOut(await warehouses.replace(req.params.id, req.body)) }));

  r.delete('/inventory/warehouses/:id', {
    config: { ...config, permission: 'inventory.write' },
    schema: { tags, summary: 'Delete an empty warehouse (not the default while others exist)', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req, reply) => {
    await warehouses.remove(req.params.id);
    return reply.code(204).send(null);
  });
}
