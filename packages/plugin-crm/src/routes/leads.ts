import { ADMIN, dataOf, errorResponses, filtersOf, IdParams, listOf, NoContent } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { ActivityInput, ActivityListQuery, ActivityOut, ConversionOut, ConvertInput, DisqualifyInput, LeadInput, LeadListQuery, LeadOut, LeadPatch } from '../schemas/lead.js';
import { LeadTaskInput, TaskOut } from '../schemas/task.js';
import { LeadConversion } from '../services/conversion.js';
import { Leads } from '../services/leads.js';
import type { LeadFilter } from '../services/reads.js';
import { accountOut, activityOut, contactOut, dealOut, leadOut, taskOut } from './serialize.js';

export async function leadRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const leads = container.resolve(Leads);
  const conversion = container.resolve(LeadConversion);
  const tags = ['CRM leads'];
  const read = { auth: ADMIN, permission: 'crm.leads.read' };
  const write = { auth: ADMIN, permission: 'crm.leads.write' };

  r.get('/crm/leads', {
    config: read,
    schema: { tags, summary: 'List leads: filter, search name, e-mail and company (any case and accents), sort', querystring: LeadListQuery, response: { 200: listOf(LeadOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await leads.list(req.query, { ...(filtersOf(req.query) as LeadFilter), search: req.query.search });
    return { data: page.items.map(leadOut), meta: { pagination: page.pagination } };
  });

  r.post('/crm/leads', {
    config: write,
    schema: { tags, summary: 'Create a lead (owner: the calling staff member unless sent)', body: LeadInput, response: { 201: dataOf(LeadOut), ...errorResponses(400, 401, 403, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: leadOut(await leads.create(req.body)) }));

  r.get('/crm/leads/:id', {
    config: read,
    schema: { tags, summary: 'Read a lead', params: IdParams, response: { 200: dataOf(LeadOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: leadOut(await leads.get(req.params.id)) }));

  r.patch('/crm/leads/:id', {
    config: write,
    schema: { tags, summary: 'Change the fields sent; the score follows', params: IdParams, body: LeadPatch, response: { 200: dataOf(LeadOut), ...errorResponses(400, 401, 403, 404, 422) } },
  }, async (req) => ({ data: leadOut(await leads.update(req.params.id, req.body)) }));

  r.delete('/crm/leads/:id', {
    config: write,
    schema: { tags, summary: 'Delete a lead with its activities and tasks', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await leads.remove(req.params.id);
    return reply.code(204).send(null);
  });

  r.post('/crm/leads/:id/qualify', {
    config: write,
    schema: { tags, summary: "Rescore and qualify: sql at or above the store's threshold, mql below", params: IdParams, response: { 200: dataOf(LeadOut), ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req) => ({ data: leadOut(await leads.qualify(req.params.id)) }));

  r.post('/crm/leads/:id/disqualify', {
    config: write,
    schema: { tags, summary: 'Disqualify with a reason', params: IdParams, body: DisqualifyInput, response: { 200: dataOf(LeadOut), ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req) => ({ data: leadOut(await leads.disqualify(req.params.id, req.body.reason)) }));

  r.post('/crm/leads/:id/convert', {
    config: write,
    schema: {
      tags,
      summary: 'Convert into a contact, optionally an account and a deal; again: the same records',
      params: IdParams,
      body: ConvertInput.nullish(),
      response: { 200: dataOf(ConversionOut), ...errorResponses(400, 401, 403, 404, 409, 422) },
    },
  }, async (req) => {
    const done = await conversion.convert(req.params.id, req.body ?? ConvertInput.parse({}));
    return { data: { lead: leadOut(done.lead), contact: contactOut(done.contact), account: done.account && accountOut(done.account), deal: done.deal && dealOut(done.deal) } };
  });

  r.get('/crm/leads/:id/activities', {
    config: read,
    schema: { tags, summary: "The lead's calls, e-mails, meetings and notes, latest first", params: IdParams, querystring: ActivityListQuery, response: { 200: listOf(ActivityOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => {
    const page = await leads.activities(req.params.id, req.query, req.query['filter[type]']);
    return { data: page.items.map(activityOut), meta: { pagination: page.pagination } };
  });

  r.post('/crm/leads/:id/activities', {
    config: write,
    schema: { tags, summary: 'Record a call, e-mail, meeting or note', params: IdParams, body: ActivityInput, response: { 201: dataOf(ActivityOut), ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req, reply) => reply.code(201).send({ data: activityOut(await leads.recordActivity(req.params.id, req.body)) }));

  r.post('/crm/leads/:id/tasks', {
    config: { auth: ADMIN, permission: 'crm.tasks.write' },
    schema: { tags, summary: 'Create a task for the lead', params: IdParams, body: LeadTaskInput, response: { 201: dataOf(TaskOut), ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: taskOut(await leads.addTask(req.params.id, req.body)) }));
}
