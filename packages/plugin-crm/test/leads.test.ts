import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { scoreLead } from '../src/index.js';
import { crmApp, crmCaller, fails, ok, staffMember } from './helpers.js';

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
let call: ReturnType<typeof crmCaller>;

beforeAll(async () => {
  t = await crmApp();
  a = await t.createTenant();
  b = await t.createTenant();
  call = crmCaller(t, a);
});
afterAll(() => t?.close());

const lead = (body: Record<string, unknown>) => ok(call('POST', '/leads', body), 201);
const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id);

describe('leads', () => {
  it('creates, reads, changes and deletes a lead with every field of the specification', async () => {
    const created = await lead({
      email: '  Ana.Rojas@Example.com ',
      first_name: 'Ana',
      last_name: 'Rojas',
      phone: '+51 999 888 777',
      company: 'Andes Textiles',
      job_title: 'Purchasing Manager',
      source: 'web_form',
      tags: ['fair', 'fair', 'lima'],
      metadata: { campaign: 'spring' },
    });
    expect(created).toMatchObject({
      owner_id: null,
      email: 'ana.rojas@example.com',
      first_name: 'Ana',
      last_name: 'Rojas',
      phone: '+51 999 888 777',
      company: 'Andes Textiles',
      job_title: 'Purchasing Manager',
      source: 'web_form',
      status: 'new',
      // manager 15 + company 10 + e-mail 5 + phone 5 + web form 15
      score: 50,
      disqualified_reason: null,
      converted_at: null,
      converted_contact_id: null,
      converted_account_id: null,
      converted_deal_id: null,
      tags: ['fair', 'lima'],
      metadata: { campaign: 'spring' },
      last_activity_at: null,
    });
    expect(await ok(call('GET', `/leads/${created.id}`))).toEqual(created);

    const changed = await ok(call('PATCH', `/leads/${created.id}`, { job_title: 'Chief Executive Officer', phone: null, tags: [] }));
    expect(changed).toMatchObject({ job_title: 'Chief Executive Officer', phone: null, tags: [], email: 'ana.rojas@example.com', score: 55 });
    expect(Date.parse(changed.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));

    expect((await call('DELETE', `/leads/${created.id}`)).statusCode).toBe(204);
    await fails(call('GET', `/leads/${created.id}`), 404, 'LEAD_NOT_FOUND');
    await fails(call('DELETE', `/leads/${created.id}`), 404, 'LEAD_NOT_FOUND');
    await fails(call('PATCH', `/leads/${created.id}`, { company: 'x' }), 404, 'LEAD_NOT_FOUND');
  });

  it('refuses bad input with the failing field', async () => {
    for (const body of [
      {},
      { last_name: '' },
      { last_name: 'X', source: 'fax' },
      { last_name: 'X', email: 'not-an-email' },
      { last_name: 'X', status: 'sql' },
      { last_name: 'X', score: 99 },
      { last_name: 'X', tags: 'vip' },
      { last_name: 'X', metadata: [1] },
      { last_name: 'X', owner_id: 'nobody' },
      { last_name: 'X', phone: 'call me' },
    ]) {
      const error = await fails(call('POST', '/leads', body), 400, 'VALIDATION_ERROR');
      expect(error.details.length, JSON.stringify(body)).toBeGreaterThan(0);
    }
    await fails(call('GET', '/leads/not-a-uuid'), 400, 'VALIDATION_ERROR');
    await fails(call('GET', '/leads?filter[status]=hot'), 400, 'VALIDATION_ERROR');
    await fails(call('GET', '/leads?filter[source]=fax'), 400, 'VALIDATION_ERROR');
    await fails(call('GET', '/leads?sort=email'), 400, 'VALIDATION_ERROR');
    await fails(call('GET', '/leads?filter[colour]=red'), 400, 'VALIDATION_ERROR');
    await fails(call('GET', '/leads?cursor=nonsense'), 400, 'VALIDATION_ERROR');
    const forged = Buffer.from(JSON.stringify({ s: '-created_at', v: 'yesterday', i: crypto.randomUUID() })).toString('base64url');
    await fails(call('GET', `/leads?cursor=${forged}`), 400, 'VALIDATION_ERROR');
  });

  it("makes the calling staff member the owner, and refuses an owner who is not the store's", async () => {
    const member = await staffMember(t, a);
    const own = await ok(crmCaller(t, a, member.token)('POST', '/leads', { last_name: 'Mamani' }), 201);
    expect(own.owner_id).toBe(member.id);
    // An API key is nobody: no owner unless one is sent.
    expect((await lead({ last_name: 'Key' })).owner_id).toBeNull();
    expect((await lead({ last_name: 'Given', owner_id: member.id })).owner_id).toBe(member.id);
    const unowned = await ok(crmCaller(t, a, member.token)('POST', '/leads', { last_name: 'Nobody', owner_id: null }), 201);
    expect(unowned.owner_id).toBeNull();

    const stranger = await staffMember(t, b);
    const error = await fails(call('POST', '/leads', { last_name: 'X', owner_id: stranger.id }), 422, 'STAFF_NOT_FOUND');
    expect(error.details[0].path).toBe('body.owner_id');
    await fails(call('PATCH', `/leads/${own.id}`, { owner_id: stranger.id }), 422, 'STAFF_NOT_FOUND');
    await fails(call('POST', '/leads', { last_name: 'X', owner_id: crypto.randomUUID() }), 422, 'STAFF_NOT_FOUND');
  });

  it('needs the permission its route names', async () => {
    const reader = await staffMember(t, a, 'lead reader', ['crm.leads.read']);
    const as = crmCaller(t, a, reader.token);
    expect((await as('GET', '/leads')).statusCode).toBe(200);
    await fails(as('POST', '/leads', { last_name: 'X' }), 403, 'FORBIDDEN');
    await fails(as('GET', '/deals'), 403, 'FORBIDDEN');
    await fails(t.request({ method: 'GET', url: '/api/v1/crm/leads', headers: a.headers(a.storefrontToken) }), 403);
    await fails(t.request({ method: 'GET', url: '/api/v1/crm/leads', headers: { 'x-tenant-id': a.id } }), 401, 'UNAUTHENTICATED');
  });

  it('scores from the documented rules and rescores on every change', () => {
    const base = { jobTitle: null, company: null, email: null, phone: null, source: 'import' as const };
    expect(scoreLead(base, {})).toBe(5);
    expect(scoreLead({ ...base, jobTitle: 'VP of Sales' }, {})).toBe(30);
    expect(scoreLead({ ...base, jobTitle: 'Team lead' }, {})).toBe(20);
    expect(scoreLead({ ...base, jobTitle: 'Analyst' }, {})).toBe(10);
    expect(scoreLead({ ...base, source: 'web_form' }, { meeting: 1, call: 1 })).toBe(33);
    // activities count at most 30
    expect(scoreLead(base, { meeting: 10 })).toBe(35);
    expect(scoreLead({ jobTitle: 'Founder', company: 'Acme', email: 'a@b.co', phone: '+1 555', source: 'web_form' }, { meeting: 5 })).toBe(90);
  });
});

describe('qualify, disqualify and their states', () => {
  it("qualifies at or above the store's threshold as sql, below as mql", async () => {
    expect(await ok(call('GET', '/settings'))).toEqual({ sql_threshold: 60, updated_at: null });
    const strong = await lead({ last_name: 'Strong', job_title: 'CEO', company: 'Acme', email: 'ceo@acme.pe', phone: '+51 1 222', source: 'web_form' }); // 60
    const weak = await lead({ last_name: 'Weak', source: 'import' }); // 5
    expect(strong.score).toBe(60);
    expect(await ok(call('POST', `/leads/${strong.id}/qualify`))).toMatchObject({ status: 'sql', score: 60 });
    expect(await ok(call('POST', `/leads/${weak.id}/qualify`))).toMatchObject({ status: 'mql', score: 5 });

    await fails(call('PUT', '/settings', { sql_threshold: 101 }), 400, 'VALIDATION_ERROR');
    expect(await ok(call('PUT', '/settings', { sql_threshold: 61 }))).toMatchObject({ sql_threshold: 61 });
    expect(await ok(call('POST', `/leads/${strong.id}/qualify`))).toMatchObject({ status: 'mql' });
    expect(await ok(call('PUT', '/settings', { sql_threshold: 5 }))).toMatchObject({ sql_threshold: 5 });
    expect(await ok(call('POST', `/leads/${weak.id}/qualify`))).toMatchObject({ status: 'sql' });
    await ok(call('PUT', '/settings', { sql_threshold: 60 }));
    // another store keeps its own threshold
    expect((await ok(crmCaller(t, b)('GET', '/settings'))).sql_threshold).toBe(60);
  });

  it('disqualifies with a reason only, and answers moves its state forbids with 409', async () => {
    const l = await lead({ last_name: 'Quispe' });
    await fails(call('POST', `/leads/${l.id}/disqualify`), 400, 'VALIDATION_ERROR');
    await fails(call('POST', `/leads/${l.id}/disqualify`, {}), 400, 'VALIDATION_ERROR');
    await fails(call('POST', `/leads/${l.id}/disqualify`, { reason: '  ' }), 400, 'VALIDATION_ERROR');
    const out = await ok(call('POST', `/leads/${l.id}/disqualify`, { reason: 'No budget this year' }));
    expect(out).toMatchObject({ status: 'disqualified', disqualified_reason: 'No budget this year' });
    await fails(call('POST', `/leads/${l.id}/disqualify`, { reason: 'again' }), 409, 'INVALID_STATE_TRANSITION');
    await fails(call('POST', `/leads/${l.id}/convert`, {}), 409, 'INVALID_STATE_TRANSITION');
    // A disqualified lead can be qualified again; the reason goes.
    expect(await ok(call('POST', `/leads/${l.id}/qualify`))).toMatchObject({ status: 'mql', disqualified_reason: null });

    await ok(call('POST', `/leads/${l.id}/convert`, {}));
    const converted = await fails(call('POST', `/leads/${l.id}/disqualify`, { reason: 'late' }), 409, 'INVALID_STATE_TRANSITION');
    expect(converted.message).toBe('Cannot disqualify a lead that is converted');
    await fails(call('POST', `/leads/${l.id}/qualify`), 409, 'INVALID_STATE_TRANSITION');
    await fails(call('POST', `/leads/${l.id}/activities`, { type: 'note', subject: 'late' }), 409, 'LEAD_CONVERTED');
    await fails(call('POST', `/leads/${l.id}/tasks`, { title: 'late' }), 409, 'LEAD_CONVERTED');
    await fails(call('POST', `/leads/${crypto.randomUUID()}/qualify`), 404, 'LEAD_NOT_FOUND');
    await fails(call('POST', `/leads/${crypto.randomUUID()}/disqualify`, { reason: 'x' }), 404, 'LEAD_NOT_FOUND');
  });
});

describe('activities and lead tasks', () => {
  it('records calls, e-mails, meetings and notes, by whom and when; they bump last_activity_at, start work and raise the score', async () => {
    const member = await staffMember(t, a);
    const as = crmCaller(t, a, member.token);
    const l = await lead({ last_name: 'Condori', source: 'manual' });
    expect(l.score).toBe(10);
    const call1 = await ok(as('POST', `/leads/${l.id}/activities`, { type: 'call', subject: 'First call', body: 'Interested', occurred_at: '2026-11-20T15:00:00-05:00' }), 201);
    expect(call1).toMatchObject({ entity_kind: 'lead', entity_id: l.id, type: 'call', subject: 'First call', body: 'Interested', occurred_at: '2026-11-20T20:00:00.000Z', recorded_by: member.id });
    let now = await ok(call('GET', `/leads/${l.id}`));
    expect(now).toMatchObject({ status: 'working', last_activity_at: '2026-11-20T20:00:00.000Z', score: 18 });
    await ok(call('POST', `/leads/${l.id}/activities`, { type: 'meeting', subject: 'Demo', occurred_at: '2026-11-22T10:00:00Z' }), 201);
    // An earlier activity recorded late does not move last_activity_at back.
    await ok(call('POST', `/leads/${l.id}/activities`, { type: 'email', subject: 'Intro', occurred_at: '2026-11-01T10:00:00Z' }), 201);
    await ok(call('POST', `/leads/${l.id}/activities`, { type: 'note', subject: 'Prefers mornings' }), 201);
    now = await ok(call('GET', `/leads/${l.id}`));
    expect(now.score).toBe(10 + 8 + 10 + 4 + 1);
    expect(Date.parse(now.last_activity_at)).toBeGreaterThan(Date.parse('2026-11-22T10:00:00Z'));

    const list = await call('GET', `/leads/${l.id}/activities`);
    expect(list.json().data.map((x: { type: string }) => x.type)).toEqual(['note', 'meeting', 'call', 'email']);
    expect(list.json().meta.pagination).toEqual({ cursor: null, has_next: false, limit: 25 });
    const page1 = (await call('GET', `/leads/${l.id}/activities?limit=3`)).json();
    const page2 = (await call('GET', `/leads/${l.id}/activities?limit=3&cursor=${page1.meta.pagination.cursor}`)).json();
    expect([...page1.data, ...page2.data].map((x: { type: string }) => x.type)).toEqual(['note', 'meeting', 'call', 'email']);
    expect((await call('GET', `/leads/${l.id}/activities?filter[type]=meeting`)).json().data).toHaveLength(1);

    for (const body of [{}, { type: 'fax', subject: 'x' }, { type: 'call' }, { type: 'call', subject: 'x', occurred_at: 'yesterday' }, { type: 'call', subject: 'x', recorded_by: member.id }]) {
      await fails(call('POST', `/leads/${l.id}/activities`, body), 400, 'VALIDATION_ERROR');
    }
    await fails(call('POST', `/leads/${crypto.randomUUID()}/activities`, { type: 'call', subject: 'x' }), 404, 'LEAD_NOT_FOUND');
    await fails(call('GET', `/leads/${crypto.randomUUID()}/activities`), 404, 'LEAD_NOT_FOUND');
  });

  it('creates tasks for a lead, assigned to the calling staff member unless sent', async () => {
    const member = await staffMember(t, a);
    const l = await lead({ last_name: 'Huaman' });
    const mine = await ok(crmCaller(t, a, member.token)('POST', `/leads/${l.id}/tasks`, { title: 'Send catalogue', priority: 'high', due_at: '2026-12-01T09:00:00Z', description: 'PDF' }), 201);
    expect(mine).toMatchObject({ entity_kind: 'lead', entity_id: l.id, assigned_to: member.id, title: 'Send catalogue', description: 'PDF', status: 'open', priority: 'high', due_at: '2026-12-01T09:00:00.000Z', completed_at: null });
    const byKey = await ok(call('POST', `/leads/${l.id}/tasks`, { title: 'Call' }), 201);
    expect(byKey).toMatchObject({ assigned_to: null, priority: 'medium', due_at: null });
    const stranger = await staffMember(t, b);
    await fails(call('POST', `/leads/${l.id}/tasks`, { title: 'x', assigned_to: stranger.id }), 422, 'STAFF_NOT_FOUND');
    await fails(call('POST', `/leads/${l.id}/tasks`, { title: 'x', priority: 'asap' }), 400, 'VALIDATION_ERROR');
    await fails(call('POST', `/leads/${l.id}/tasks`, { priority: 'low' }), 400, 'VALIDATION_ERROR');
    await fails(call('POST', `/leads/${crypto.randomUUID()}/tasks`, { title: 'x' }), 404, 'LEAD_NOT_FOUND');
    const tasks = (await call('GET', `/tasks?filter[entity_kind]=lead&filter[entity_id]=${l.id}`)).json().data;
    expect(ids(tasks).sort()).toEqual([mine.id, byKey.id].sort());
    // Deleting the lead deletes its tasks and activities.
    await ok(call('POST', `/leads/${l.id}/activities`, { type: 'note', subject: 'x' }), 201);
    expect((await call('DELETE', `/leads/${l.id}`)).statusCode).toBe(204);
    await fails(call('GET', `/tasks/${mine.id}`), 404, 'TASK_NOT_FOUND');
  });
});

describe('the lead list', () => {
  let store: TestTenant;
  let as: ReturnType<typeof crmCaller>;
  let owner: { id: string; token: string };
  const made: any[] = [];

  beforeAll(async () => {
    store = await t.createTenant();
    as = crmCaller(t, store);
    owner = await staffMember(t, store);
    const people = [
      { first_name: 'José', last_name: 'Rojás', company: 'Café Ñandú', email: 'jose@cafe.pe', source: 'web_form', job_title: 'Owner' },
      { first_name: 'María', last_name: 'Álvarez', company: 'Textiles Andinos', email: 'MARIA@textiles.pe', source: 'import' },
      { first_name: 'Lucía', last_name: 'Rojas', company: 'Minera Sur', email: 'lucia@minera.pe', source: 'api', owner_id: owner.id },
      { first_name: 'Pedro', last_name: 'Zapata', company: 'Rojas & Hijos', email: 'pedro@rh.pe', source: 'manual', job_title: 'Director' },
      { first_name: 'Ana', last_name: 'Benítez', company: null, email: 'ana_b@mail.pe', source: 'web_form', owner_id: owner.id },
      { first_name: 'Luis', last_name: 'Cruz', company: '100% Algodón', email: 'luis@algodon.pe', source: 'import' },
    ];
    for (const p of people) made.push(await ok(as('POST', '/leads', p), 201));
    await ok(as('POST', `/leads/${made[1].id}/disqualify`, { reason: 'spam' }));
    made[1] = await ok(as('GET', `/leads/${made[1].id}`));
    await ok(t.request({ method: 'POST', url: '/api/v1/crm/leads', headers: b.headers(), payload: { last_name: 'Rojas', company: 'Other store' } }), 201);
  });

  const list = async (query: string) => {
    const res = await as('GET', `/leads${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const byCreated = (rows: any[]) => [...rows].sort((x, y) => (x.created_at === y.created_at ? (x.id < y.id ? -1 : 1) : x.created_at < y.created_at ? -1 : 1));

  it('sorts by -created_at by default, and by -score, last_name and their reverses', async () => {
    expect(ids((await list('')).data)).toEqual(ids(byCreated(made).reverse()));
    expect(ids((await list('?sort=created_at')).data)).toEqual(ids(byCreated(made)));
    const scores = (await list('?sort=-score')).data.map((l: { score: number }) => l.score);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
    expect(new Set((await list('?sort=-score')).data.map((l: { id: string }) => l.id))).toEqual(new Set(ids(made)));
    const names = (await list('?sort=last_name')).data.map((l: { last_name: string }) => l.last_name);
    expect(names).toHaveLength(6);
    expect((await list('?sort=-last_name')).data.map((l: { last_name: string }) => l.last_name)).toEqual([...names].reverse());
    expect(names.indexOf('Benítez')).toBeLessThan(names.indexOf('Zapata'));
  });

  it('filters by status, source and owner', async () => {
    expect(ids((await list('?filter[status]=disqualified')).data)).toEqual([made[1].id]);
    expect(ids((await list('?filter[status]=new&sort=created_at')).data)).toEqual(ids(byCreated(made.filter((l) => l.status === 'new'))));
    expect(ids((await list('?filter[source]=import&sort=created_at')).data)).toEqual([made[1].id, made[5].id]);
    expect(ids((await list(`?filter[owner_id]=${owner.id}&sort=created_at`)).data)).toEqual([made[2].id, made[4].id]);
    expect((await list(`?filter[owner_id]=${crypto.randomUUID()}`)).data).toEqual([]);
    expect(ids((await list(`?filter[source]=web_form&filter[owner_id]=${owner.id}`)).data)).toEqual([made[4].id]);
  });

  it("searches name, e-mail and company whatever the case and accents, in the caller's store only", async () => {
    const found = async (q: string) => ids((await list(`?search=${encodeURIComponent(q)}&sort=created_at`)).data);
    // "rojas" finds Rojás, Rojas and the company Rojas & Hijos, not the other store's Rojas.
    expect(await found('rojas')).toEqual([made[0].id, made[2].id, made[3].id]);
    expect(await found('ROJÁS')).toEqual([made[0].id, made[2].id, made[3].id]);
    expect(await found('alvarez')).toEqual([made[1].id]);
    expect(await found('nandu')).toEqual([made[0].id]);
    expect(await found('maria@TEXTILES')).toEqual([made[1].id]);
    expect(await found('josé rojás')).toEqual([made[0].id]);
    // LIKE's wildcards are plain characters.
    expect(await found('100%')).toEqual([made[5].id]);
    expect(await found('ana_b')).toEqual([made[4].id]);
    expect(await found('a_b')).toEqual([made[4].id]);
    expect(await found('%')).toEqual([made[5].id]);
    expect(await found('nobody-here')).toEqual([]);
    expect(await found('rojas')).not.toContain(undefined);
    expect(ids((await list('?search=rojas&filter[owner_id]=' + owner.id)).data)).toEqual([made[2].id]);
  });

  it('pages with a cursor: 25 by default, at most 100, limit in the pagination', async () => {
    const first = await list('?limit=4');
    expect(first.data).toHaveLength(4);
    expect(first.meta.pagination).toMatchObject({ has_next: true, limit: 4 });
    const second = await list(`?limit=4&cursor=${first.meta.pagination.cursor}`);
    expect(second.meta.pagination).toEqual({ cursor: null, has_next: false, limit: 4 });
    expect([...ids(first.data), ...ids(second.data)]).toEqual(ids((await list('')).data));
    expect((await list('')).meta.pagination.limit).toBe(25);
    expect((await list('?limit=1000')).meta.pagination.limit).toBe(100);
    await fails(as('GET', '/leads?limit=0'), 400, 'VALIDATION_ERROR');
    // A cursor made for one sort is refused for another.
    const byScore = await list('?sort=-score&limit=2');
    await fails(as('GET', `/leads?sort=last_name&cursor=${byScore.meta.pagination.cursor}`), 400, 'VALIDATION_ERROR');
    const rest = await list(`?sort=-score&limit=10&cursor=${byScore.meta.pagination.cursor}`);
    expect([...ids(byScore.data), ...ids(rest.data)]).toEqual(ids((await list('?sort=-score')).data));
    const byName = await list('?sort=last_name&limit=3');
    const names = await list(`?sort=last_name&limit=3&cursor=${byName.meta.pagination.cursor}`);
    expect([...ids(byName.data), ...ids(names.data)]).toEqual(ids((await list('?sort=last_name')).data));
  });

  it('reads a page in one statement besides the transaction', async () => {
    for (const query of ['', '?sort=-score&filter[status]=new', `?search=rojas&filter[owner_id]=${owner.id}`, '?sort=last_name&filter[source]=import']) {
      const { result, count, statements } = await t.countQueries(() => as('GET', `/leads${query}`));
      expect(result.statusCode).toBe(200);
      // BEGIN (entering the store rides on it), the page, COMMIT
      expect(count, statements.join('\n')).toBe(3);
    }
  });
});

describe('events', () => {
  it('publishes what happens to leads and tasks through the outbox, in the store', async () => {
    const { Database } = await import('@qhatu/core');
    const store = await t.createTenant();
    const as = crmCaller(t, store);
    const l = await ok(as('POST', '/leads', { last_name: 'Evento', company: 'Acme' }), 201);
    await ok(as('PATCH', `/leads/${l.id}`, { job_title: 'CEO' }));
    await ok(as('POST', `/leads/${l.id}/qualify`));
    await ok(as('POST', `/leads/${l.id}/disqualify`, { reason: 'Duplicate' }));
    const task = await ok(as('POST', `/leads/${l.id}/tasks`, { title: 'Call' }), 201);
    await ok(as('POST', `/tasks/${task.id}/cancel`));
    await ok(as('PUT', '/settings', { sql_threshold: 70 }));
    expect((await as('DELETE', `/leads/${l.id}`)).statusCode).toBe(204);
    const events = await t.app.container.resolve(Database).query<{ type: string; source: string; data: Record<string, unknown> }>(
      `select type, source, data from core_outbox where tenant_id = ? order by occurred_at, id`, [store.id]);
    expect(events.map((e) => e.type)).toEqual([
      'crm.lead.created', 'crm.lead.updated', 'crm.lead.qualified', 'crm.lead.disqualified', 'crm.task.created', 'crm.task.cancelled', 'crm.settings.updated', 'crm.lead.deleted',
    ]);
    expect(new Set(events.map((e) => e.source))).toEqual(new Set(['/qhatu/crm']));
    expect(events[2].data).toMatchObject({ id: l.id, status: 'mql', sql_threshold: 60 });
    expect(events[3].data).toMatchObject({ id: l.id, status: 'disqualified', disqualified_reason: 'Duplicate' });
    expect(events[5].data).toMatchObject({ id: task.id, entity_kind: 'lead', entity_id: l.id, status: 'cancelled' });
  });
});

describe('tenant isolation', () => {
  it("never shows, changes or converts another store's lead", async () => {
    const theirs = await ok(crmCaller(t, b)('POST', '/leads', { last_name: 'Theirs' }), 201);
    await fails(call('GET', `/leads/${theirs.id}`), 404, 'LEAD_NOT_FOUND');
    await fails(call('PATCH', `/leads/${theirs.id}`, { company: 'x' }), 404, 'LEAD_NOT_FOUND');
    await fails(call('DELETE', `/leads/${theirs.id}`), 404, 'LEAD_NOT_FOUND');
    await fails(call('POST', `/leads/${theirs.id}/qualify`), 404, 'LEAD_NOT_FOUND');
    await fails(call('POST', `/leads/${theirs.id}/convert`, {}), 404, 'LEAD_NOT_FOUND');
    await fails(call('POST', `/leads/${theirs.id}/activities`, { type: 'call', subject: 'x' }), 404, 'LEAD_NOT_FOUND');
    await fails(call('POST', `/leads/${theirs.id}/tasks`, { title: 'x' }), 404, 'LEAD_NOT_FOUND');
    expect(ids((await call('GET', '/leads?limit=100')).json().data)).not.toContain(theirs.id);
    // A's key naming B's store is refused before anything runs.
    await fails(t.request({ method: 'GET', url: `/api/v1/crm/leads/${theirs.id}`, headers: { ...a.headers(), 'x-tenant-id': b.id } }), 403, 'FORBIDDEN');
    expect((await ok(crmCaller(t, b)('GET', `/leads/${theirs.id}`))).last_name).toBe('Theirs');
  });
});
