import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { crmApp, crmCaller, fails, ok, staffMember } from './helpers.js';

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
let call: ReturnType<typeof crmCaller>;
const entities: Record<string, string> = {};

beforeAll(async () => {
  t = await crmApp();
  a = await t.createTenant();
  b = await t.createTenant();
  call = crmCaller(t, a);
  entities.contact = (await ok(call('POST', '/contacts', { last_name: 'C' }), 201)).id;
  entities.account = (await ok(call('POST', '/accounts', { name: 'A' }), 201)).id;
  entities.deal = (await ok(call('POST', '/deals', { title: 'D' }), 201)).id;
  entities.lead = (await ok(call('POST', '/leads', { last_name: 'L' }), 201)).id;
});
afterAll(() => t?.close());

describe('tasks', () => {
  it('creates a task on a contact, an account, a deal or a lead of the store', async () => {
    const member = await staffMember(t, a);
    for (const kind of ['contact', 'account', 'deal', 'lead']) {
      const task = await ok(crmCaller(t, a, member.token)('POST', '/tasks', { entity_kind: kind, entity_id: entities[kind], title: `Follow ${kind}`, priority: 'urgent', due_at: '2026-12-24T12:00:00+01:00', description: 'd' }), 201);
      expect(task).toMatchObject({ entity_kind: kind, entity_id: entities[kind], assigned_to: member.id, title: `Follow ${kind}`, description: 'd', status: 'open', priority: 'urgent', due_at: '2026-12-24T11:00:00.000Z', completed_at: null });
      expect(await ok(call('GET', `/tasks/${task.id}`))).toEqual(task);
    }
    // The entity must exist, be of the kind named, and be the caller's store's.
    const theirLead = (await ok(crmCaller(t, b)('POST', '/leads', { last_name: 'Theirs' }), 201)).id;
    const refused = await fails(call('POST', '/tasks', { entity_kind: 'lead', entity_id: theirLead, title: 'x' }), 422, 'ENTITY_NOT_FOUND');
    expect(refused.details[0].path).toBe('body.entity_id');
    await fails(call('POST', '/tasks', { entity_kind: 'deal', entity_id: entities.contact, title: 'x' }), 422, 'ENTITY_NOT_FOUND');
    await fails(call('POST', '/tasks', { entity_kind: 'contact', entity_id: crypto.randomUUID(), title: 'x' }), 422, 'ENTITY_NOT_FOUND');
    await fails(call('POST', '/tasks', { entity_kind: 'lead', entity_id: entities.lead, title: 'x', assigned_to: (await staffMember(t, b)).id }), 422, 'STAFF_NOT_FOUND');
    for (const body of [
      { entity_kind: 'order', entity_id: entities.lead, title: 'x' },
      { entity_kind: 'lead', entity_id: 'x', title: 'x' },
      { entity_kind: 'lead', entity_id: entities.lead },
      { entity_kind: 'lead', entity_id: entities.lead, title: 'x', priority: 'critical' },
      { entity_kind: 'lead', entity_id: entities.lead, title: 'x', status: 'completed' },
      { entity_kind: 'lead', entity_id: entities.lead, title: 'x', due_at: 'tomorrow' },
    ]) {
      await fails(call('POST', '/tasks', body), 400, 'VALIDATION_ERROR');
    }
  });

  it('changes the fields sent, and moves a task to another entity that exists', async () => {
    const task = await ok(call('POST', '/tasks', { entity_kind: 'lead', entity_id: entities.lead, title: 'Edit me' }), 201);
    const member = await staffMember(t, a);
    expect(await ok(call('PATCH', `/tasks/${task.id}`, { title: 'Edited', priority: 'low', assigned_to: member.id, due_at: '2027-01-01T00:00:00Z' }))).toMatchObject({ title: 'Edited', priority: 'low', assigned_to: member.id, due_at: '2027-01-01T00:00:00.000Z' });
    expect(await ok(call('PATCH', `/tasks/${task.id}`, { entity_kind: 'deal', entity_id: entities.deal, due_at: null, assigned_to: null }))).toMatchObject({ entity_kind: 'deal', entity_id: entities.deal, due_at: null, assigned_to: null });
    await fails(call('PATCH', `/tasks/${task.id}`, { entity_kind: 'account' }), 422, 'ENTITY_NOT_FOUND');
    await fails(call('PATCH', `/tasks/${task.id}`, { status: 'completed' }), 400, 'VALIDATION_ERROR');
    await fails(call('PATCH', `/tasks/${crypto.randomUUID()}`, { title: 'x' }), 404, 'TASK_NOT_FOUND');
    expect((await call('DELETE', `/tasks/${task.id}`)).statusCode).toBe(204);
    await fails(call('DELETE', `/tasks/${task.id}`), 404, 'TASK_NOT_FOUND');
  });

  it('completes and cancels open tasks only', async () => {
    const one = await ok(call('POST', '/tasks', { entity_kind: 'contact', entity_id: entities.contact, title: 'Complete me' }), 201);
    const two = await ok(call('POST', '/tasks', { entity_kind: 'contact', entity_id: entities.contact, title: 'Cancel me' }), 201);
    const done = await ok(call('POST', `/tasks/${one.id}/complete`));
    expect(done.status).toBe('completed');
    expect(Date.parse(done.completed_at)).toBeGreaterThan(0);
    const dropped = await ok(call('POST', `/tasks/${two.id}/cancel`));
    expect(dropped).toMatchObject({ status: 'cancelled', completed_at: null });
    for (const [id, action] of [[one.id, 'complete'], [one.id, 'cancel'], [two.id, 'complete'], [two.id, 'cancel']]) {
      const error = await fails(call('POST', `/tasks/${id}/${action}`), 409, 'INVALID_STATE_TRANSITION');
      expect(error.message).toMatch(/^Cannot (complete|cancel) a task that is (completed|cancelled)$/);
    }
    await fails(call('POST', `/tasks/${crypto.randomUUID()}/complete`), 404, 'TASK_NOT_FOUND');
    const theirs = await ok(crmCaller(t, b)('POST', '/tasks', { entity_kind: 'lead', entity_id: (await ok(crmCaller(t, b)('POST', '/leads', { last_name: 'x' }), 201)).id, title: 'x' }), 201);
    for (const [method, path] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['POST', '/complete'], ['POST', '/cancel']] as const) {
      await fails(call(method, `/tasks/${theirs.id}${path}`, method === 'PATCH' ? { title: 'x' } : undefined), 404, 'TASK_NOT_FOUND');
    }
  });

  it('lists with every filter and sort; priority sorts by urgency', async () => {
    const store = await t.createTenant();
    const as = crmCaller(t, store);
    const member = await staffMember(t, store);
    const lead = (await ok(as('POST', '/leads', { last_name: 'L' }), 201)).id;
    const deal = (await ok(as('POST', '/deals', { title: 'D' }), 201)).id;
    const specs = [
      { entity_kind: 'lead', entity_id: lead, title: 't0', priority: 'medium', due_at: '2026-12-03T00:00:00Z' },
      { entity_kind: 'deal', entity_id: deal, title: 't1', priority: 'urgent', assigned_to: member.id },
      { entity_kind: 'lead', entity_id: lead, title: 't2', priority: 'low', due_at: '2026-12-01T00:00:00Z', assigned_to: member.id },
      { entity_kind: 'deal', entity_id: deal, title: 't3', priority: 'high', due_at: '2026-12-02T00:00:00Z' },
    ];
    const tasks: any[] = [];
    for (const s of specs) tasks.push(await ok(as('POST', '/tasks', s), 201));
    await ok(as('POST', `/tasks/${tasks[3].id}/complete`));
    const titles = async (q: string) => {
      const res = await as('GET', `/tasks${q}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data.map((x: { title: string }) => x.title);
    };
    expect(await titles('')).toEqual(['t3', 't2', 't1', 't0']);
    expect(await titles('?sort=created_at')).toEqual(['t0', 't1', 't2', 't3']);
    // Urgent, high, medium, low: not alphabetical.
    expect(await titles('?sort=priority')).toEqual(['t1', 't3', 't0', 't2']);
    expect(await titles('?sort=-priority')).toEqual(['t2', 't0', 't3', 't1']);
    // Soonest due first; tasks without a due date last.
    expect(await titles('?sort=due_at')).toEqual(['t2', 't3', 't0', 't1']);
    expect(await titles('?sort=-due_at')).toEqual(['t1', 't0', 't3', 't2']);
    expect(await titles('?filter[status]=completed')).toEqual(['t3']);
    expect(await titles('?filter[status]=open&sort=due_at')).toEqual(['t2', 't0', 't1']);
    expect(await titles('?filter[priority]=urgent')).toEqual(['t1']);
    expect(await titles(`?filter[assigned_to]=${member.id}&sort=priority`)).toEqual(['t1', 't2']);
    expect(await titles('?filter[entity_kind]=deal')).toEqual(['t3', 't1']);
    expect(await titles(`?filter[entity_kind]=lead&filter[entity_id]=${lead}&sort=due_at`)).toEqual(['t2', 't0']);
    expect(await titles(`?filter[entity_id]=${deal}`)).toEqual(['t3', 't1']);
    for (const q of ['?filter[status]=done', '?filter[priority]=critical', '?filter[entity_kind]=order', '?sort=title', '?filter[assigned_to]=me']) {
      await fails(as('GET', `/tasks${q}`), 400, 'VALIDATION_ERROR');
    }
    for (const sort of ['priority', 'due_at', '-due_at', '-created_at']) {
      const first = (await as('GET', `/tasks?sort=${sort}&limit=3`)).json();
      expect(first.meta.pagination).toMatchObject({ has_next: true, limit: 3 });
      const rest = (await as('GET', `/tasks?sort=${sort}&limit=3&cursor=${first.meta.pagination.cursor}`)).json();
      expect(rest.meta.pagination).toEqual({ cursor: null, has_next: false, limit: 3 });
      expect([...first.data, ...rest.data].map((x: { title: string }) => x.title)).toEqual(await titles(`?sort=${sort}`));
    }
    const { count } = await t.countQueries(() => as('GET', `/tasks?sort=priority&filter[assigned_to]=${member.id}`));
    expect(count).toBe(3);
    expect(await titles('')).not.toContain('Complete me');
  });
});
