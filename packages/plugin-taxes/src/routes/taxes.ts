import { ADMIN, dataOf, errorResponses, filtersOf, IdParams, listOf, NoContent } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { z } from 'zod';
import {
  AssignmentListQuery, AssignmentOut, ClassAssign, ClassParams, RateParams, RatePut, RegionCreate, RegionListQuery, RegionOut, RegionPatch,
  TaxSettingsOut, TaxSettingsPatch,
} from '../schemas/taxes.js';
import { TaxClasses } from '../services/assignments.js';
import { TaxRegions } from '../services/regions.js';
import { TaxSettings } from '../services/settings.js';
import { assignmentOut, regionOut, settingsOut } from './serialize.js';

const READ = { auth: ADMIN, permission: 'taxes.read' } as const;
const WRITE = { auth: ADMIN, permission: 'taxes.write' } as const;

export async function taxRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const settings = container.resolve(TaxSettings);
  const regions = container.resolve(TaxRegions);
  const classes = container.resolve(TaxClasses);
  const tags = ['Taxes'];
  const regionOne = { 200: dataOf(RegionOut), ...errorResponses(400, 401, 403, 404) };

  r.get('/taxes/settings', {
    config: READ,
    schema: { tags, summary: "Read the store's tax settings (inclusive prices, shipping, origin country)", response: { 200: dataOf(TaxSettingsOut), ...errorResponses(400, 401, 403) } },
  }, async () => ({ data: settingsOut(await settings.get()) }));

  r.patch('/taxes/settings', {
    config: WRITE,
    schema: { tags, summary: "Change the store's tax settings (the fields given)", body: TaxSettingsPatch, response: { 200: dataOf(TaxSettingsOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => ({ data: settingsOut(await settings.update(req.body)) }));

  r.post('/taxes/regions', {
    config: WRITE,
    schema: { tags, summary: 'Add a tax region (a country, or a province of it) with its rates per class', body: RegionCreate, response: { 201: dataOf(RegionOut), ...errorResponses(400, 401, 403, 409) } },
  }, async (req, reply) => reply.code(201).send({ data: regionOut(await regions.create(req.body)) }));

  r.get('/taxes/regions', {
    config: READ,
    schema: { tags, summary: 'List the tax regions, oldest first', querystring: RegionListQuery, response: { 200: listOf(RegionOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await regions.list(req.query, filtersOf(req.query));
    return { data: page.items.map(regionOut), meta: { pagination: page.pagination } };
  });

  r.get('/taxes/regions/:id', {
    config: READ,
    schema: { tags, summary: 'Read a tax region', params: IdParams, response: regionOne },
  }, async (req) => ({ data: regionOut(await regions.get(req.params.id)) }));

  r.patch('/taxes/regions/:id', {
    config: WRITE,
    schema: { tags, summary: 'Rename a tax region or replace its rates', params: IdParams, body: RegionPatch, response: regionOne },
  }, async (req) => ({ data: regionOut(await regions.update(req.params.id, req.body)) }));

  r.delete('/taxes/regions/:id', {
    config: WRITE,
    schema: { tags, summary: 'Remove a tax region', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await regions.remove(req.params.id);
    return reply.code(204).send(null);
  });

  r.put('/taxes/regions/:id/rates/:tax_class', {
    config: WRITE,
    schema: { tags, summary: "Set a class's rate in a region (basis points)", params: RateParams, body: RatePut, response: regionOne },
  }, async (req) => ({ data: regionOut(await regions.setRate(req.params.id, req.params.tax_class, req.body.rate)) }));

  r.delete('/taxes/regions/:id/rates/:tax_class', {
    config: WRITE,
    schema: { tags, summary: "Remove a class's rate from a region (the class then pays the region's standard rate)", params: RateParams, response: regionOne },
  }, async (req) => ({ data: regionOut(await regions.removeRate(req.params.id, req.params.tax_class)) }));

  r.put('/taxes/classes/:tax_class/products', {
    config: WRITE,
    schema: {
      tags,
      summary: 'Put products (all their variants) or single variants in a tax class',
      params: ClassParams,
      body: ClassAssign,
      response: { 200: z.object({ data: z.array(AssignmentOut) }), ...errorResponses(400, 401, 403, 422) },
    },
  }, async (req) => ({ data: (await classes.assign(req.params.tax_class, req.body)).map(assignmentOut) }));

  r.get('/taxes/classes/assignments', {
    config: READ,
    schema: { tags, summary: 'List the products and variants given a tax class', querystring: AssignmentListQuery, response: { 200: listOf(AssignmentOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await classes.list(req.query, filtersOf(req.query));
    return { data: page.items.map(assignmentOut), meta: { pagination: page.pagination } };
  });

  r.delete('/taxes/classes/assignments/:id', {
    config: WRITE,
    schema: { tags, summary: 'Put a product or variant back in its default class', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await classes.remove(req.params.id);
    return reply.code(204).send(null);
  });
}
