import { ADMIN, dataOf, errorResponses, IdParams, listOf, NoContent } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { SupplierCreate, SupplierListQuery, SupplierOut, SupplierPatch } from '../schemas/supplier.js';
import { Suppliers } from '../services/suppliers.js';
import { supplierOut } from './serialize.js';

/** Suppliers are the merchant's business: admin keys only. */
export async function supplierRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const suppliers = container.resolve(Suppliers);
  const tags = ['Suppliers'];

  r.get('/catalog/suppliers', {
    config: { auth: ADMIN, permission: 'catalog.read' },
    schema: { tags, summary: 'List suppliers (the pagination carries total)', querystring: SupplierListQuery, response: { 200: listOf(SupplierOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await suppliers.list(req.query);
    return { data: page.items.map(supplierOut), meta: { pagination: page.pagination } };
  });

  r.post('/catalog/suppliers', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Create a supplier', body: SupplierCreate, response: { 201: dataOf(SupplierOut), ...errorResponses(400, 401, 403, 409) } },
  }, async (req, reply) => reply.code(201).send({ data: supplierOut(await suppliers.create(req.body)) }));

  r.get('/catalog/suppliers/:id', {
    config: { auth: ADMIN, permission: 'catalog.read' },
    schema: { tags, summary: 'Read a supplier', params: IdParams, response: { 200: dataOf(SupplierOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: supplierOut(await suppliers.get(req.params.id)) }));

  r.patch('/catalog/suppliers/:id', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Change the fields sent', params: IdParams, body: SupplierPatch, response: { 200: dataOf(SupplierOut), ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req) => ({ data: supplierOut(await suppliers.update(req.params.id, req.body)) }));

  r.delete('/catalog/suppliers/:id', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Delete a supplier (its products stay, without a supplier)', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await suppliers.remove(req.params.id);
    return reply.code(204).send(null);
  });
}
