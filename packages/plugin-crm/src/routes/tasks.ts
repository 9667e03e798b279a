import { ADMIN, dataOf, errorResponses, filtersOf, IdParams, listOf, NoContent } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { TaskInput, TaskListQuery, TaskOut, TaskPatch } from '../schemas/task.js';
import { Tasks } from '../services/tasks.js';
import { taskOut } from './serialize.js';

export async function taskRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tasks = container.resolve(Tasks);
  const tags = ['CRM tasks'];
  const read = { auth: ADMIN, permission: 'crm.tasks.read' };
  const write = { auth: ADMIN, permission: 'crm.tasks.write' };
  const one = dataOf(TaskOut);

  r.get('/crm/tasks', {
    config: read,
    schema: { tags, summary: 'List tasks (sort=priority: most urgent first)', querystring: TaskListQuery, response: { 200: listOf(TaskOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await tasks.list(req.query, filtersOf(req.query));
    return { data: page.items.map(taskOut), meta: { pagination: page.pagination } };
  });

  r.post('/crm/tasks', {
    config: write,
    schema: { tags, summary: 'Create a task on a contact, account, deal or lead', body: TaskInput, response: { 201: one, ...errorResponses(400, 401, 403, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: taskOut(await tasks.create(req.body)) }));

  r.get('/crm/tasks/:id', {
    config: read,
    schema: { tags, summary: 'Read a task', params: IdParams, response: { 200: one, ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: taskOut(await tasks.get(req.params.id)) }));

  r.patch('/crm/tasks/:id', {
    config: write,
    schema: { tags, summary: 'Change the fields sent', params: IdParams, body: TaskPatch, response: { 200: one, ...errorResponses(400, 401, 403, 404, 422) } },
  }, async (req) => ({ data: taskOut(await tasks.update(req.params.id, req.body)) }));

  r.delete('/crm/tasks/:id', {
    config: write,
    schema: { tags, summary: 'Delete a task', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await tasks.remove(req.params.id);
    return reply.code(204).send(null);
  });

  r.post('/crm/tasks/:id/complete', {
    config: write,
    schema: { tags, summary: 'Complete an open task', params: IdParams, response: { 200: one, ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req) => ({ data: taskOut(await tasks.complete(req.params.id)) }));

  r.post('/crm/tasks/:id/cancel', {
    config: write,
    schema: { tags, summary: 'Cancel an open task', params: IdParams, response: { 200: one, ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req) => ({ data: taskOut(await tasks.cancel(req.params.id)) }));
}
