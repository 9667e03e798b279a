import { ADMIN, dataOf, errorResponses, filtersOf, IdParams, listOf, NoContent } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { AccountInput, AccountListQuery, AccountOut, AccountPatch } from '../schemas/account.js';
import { ContactInput, ContactListQuery, ContactOut, ContactPatch } from '../schemas/contact.js';
import { ActivityListQuery, ActivityOut } from '../schemas/lead.js';
import { Accounts } from '../services/accounts.js';
import { Contacts } from '../services/contacts.js';
import { accountOut, activityOut, contactOut } from './serialize.js';

export async function contactRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const contacts = container.resolve(Contacts);
  const accounts = container.resolve(Accounts);
  const read = { auth: ADMIN, permission: 'crm.contacts.read' };
  const write = { auth: ADMIN, permission: 'crm.contacts.write' };

  {
    const tags = ['CRM contacts'];
    r.get('/crm/contacts', {
      config: read,
      schema: { tags, summary: 'List contacts', querystring: ContactListQuery, response: { 200: listOf(ContactOut), ...errorResponses(400, 401, 403) } },
    }, async (req) => {
      const page = await contacts.list(req.query, filtersOf(req.query));
      return { data: page.items.map(contactOut), meta: { pagination: page.pagination } };
    });

    r.post('/crm/contacts', {
      config: write,
      schema: { tags, summary: 'Create a contact', body: ContactInput, response: { 201: dataOf(ContactOut), ...errorResponses(400, 401, 403, 422) } },
    }, async (req, reply) => reply.code(201).send({ data: contactOut(await contacts.create(req.body)) }));

    r.get('/crm/contacts/:id', {
      config: read,
      schema: { tags, summary: 'Read a contact', params: IdParams, response: { 200: dataOf(ContactOut), ...errorResponses(400, 401, 403, 404) } },
    }, async (req) => ({ data: contactOut(await contacts.get(req.params.id)) }));

    r.patch('/crm/contacts/:id', {
      config: write,
      schema: { tags, summary: 'Change the fields sent', params: IdParams, body: ContactPatch, response: { 200: dataOf(ContactOut), ...errorResponses(400, 401, 403, 404, 422) } },
    }, async (req) => ({ data: contactOut(await contacts.update(req.params.id, req.body)) }));

    r.delete('/crm/contacts/:id', {
      config: write,
      schema: { tags, summary: 'Delete a contact with its activities and tasks (its deals stay)', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
    }, async (req, reply) => {
      await contacts.remove(req.params.id);
      return reply.code(204).send(null);
    });

    r.get('/crm/contacts/:id/activities', {
      config: read,
      schema: { tags, summary: "The contact's activities, those of its lead included", params: IdParams, querystring: ActivityListQuery, response: { 200: listOf(ActivityOut), ...errorResponses(400, 401, 403, 404) } },
    }, async (req) => {
      const page = await contacts.activities(req.params.id, req.query, req.query['filter[type]']);
      return { data: page.items.map(activityOut), meta: { pagination: page.pagination } };
    });
  }

  {
    const tags = ['CRM accounts'];
    r.get('/crm/accounts', {
      config: read,
      schema: { tags, summary: 'List accounts', querystring: AccountListQuery, response: { 200: listOf(AccountOut), ...errorResponses(400, 401, 403) } },
    }, async (req) => {
      const page = await accounts.list(req.query, filtersOf(req.query));
      return { data: page.items.map(accountOut), meta: { pagination: page.pagination } };
    });

    r.post('/crm/accounts', {
      config: write,
      schema: { tags, summary: 'Create an account', body: AccountInput, response: { 201: dataOf(AccountOut), ...errorResponses(400, 401, 403, 422) } },
    }, async (req, reply) => reply.code(201).send({ data: accountOut(await accounts.create(req.body)) }));

    r.get('/crm/accounts/:id', {
      config: read,
      schema: { tags, summary: 'Read an account', params: IdParams, response: { 200: dataOf(AccountOut), ...errorResponses(400, 401, 403, 404) } },
    }, async (req) => ({ data: accountOut(await accounts.get(req.params.id)) }));

    r.patch('/crm/accounts/:id', {
      config: write,
      schema: { tags, summary: 'Change the fields sent', params: IdParams, body: AccountPatch, response: { 200: dataOf(AccountOut), ...errorResponses(400, 401, 403, 404, 422) } },
    }, async (req) => ({ data: accountOut(await accounts.update(req.params.id, req.body)) }));

    r.delete('/crm/accounts/:id', {
      config: write,
      schema: { tags, summary: 'Delete an account with its tasks (its contacts and deals stay, without it)', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
    }, async (req, reply) => {
      await accounts.remove(req.params.id);
      return reply.code(204).send(null);
    });
  }
}
