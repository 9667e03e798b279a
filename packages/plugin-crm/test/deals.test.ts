import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { crmApp, crmCaller, fails, ok, staffMember } from './helpers.js';

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
let call: ReturnType<typeof crmCaller>;
let pipeline: any;
let other: any;

beforeAll(async () => {
  t = await crmApp();
  a = await t.createTenant({ currency: 'PEN' });
  b = await t.createTenant();
  call = crmCaller(t, a);
  pipeline = await ok(call('POST', '/pipelines', { name: 'Retail', stages: [{ name: 'Lead in', probability: 10 }, { name: 'Quote', probability: 40 }, { name: 'Contract', probability: 80 }] }), 201);
  other = await ok(call('POST', '/pipelines', { name: 'Events', stages: [{ name: 'Brief', probability: 20 }] }), 201);
});
afterAll(() => t?.close());

const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id);

describe('pipelines and stages', () => {
  it('keeps stages in order, adds, reorders, reprices and removes them', async () => {
    expect(pipeline.stages.map((s: any) => [s.position, s.name, s.probability])).toEqual([[0, 'Lead in', 10], [1, 'Quote', 40], [2, 'Contract', 80]]);
    const p = await ok(call('POST', '/pipelines', { name: 'Scratch', stages: [{ name: 'A', probability: 10 }] }), 201);
    const c = await ok(call('POST', `/pipelines/${p.id}/stages`, { name: 'C', probability: 70 }), 201);
    const b2 = await ok(call('POST', `/pipelines/${p.id}/stages`, { name: 'B', probability: 40, position: 1 }), 201);
    expect((await ok(call('GET', `/pipelines/${p.id}`))).stages.map((s: any) => s.name)).toEqual(['A', 'B', 'C']);
    expect(await ok(call('PATCH', `/pipelines/${p.id}/stages/${c.id}`, { position: 0, probability: 75, name: 'C!' }))).toMatchObject({ position: 0, probability: 75, name: 'C!' });
    expect((await ok(call('GET', `/pipelines/${p.id}`))).stages.map((s: any) => [s.position, s.name])).toEqual([[0, 'C!'], [1, 'A'], [2, 'B']]);
    expect((await call('DELETE', `/pipelines/${p.id}/stages/${b2.id}`)).statusCode).toBe(204);
    const left = (await ok(call('GET', `/pipelines/${p.id}`))).stages;
    expect(left.map((s: any) => [s.position, s.name])).toEqual([[0, 'C!'], [1, 'A']]);
    await call('DELETE', `/pipelines/${p.id}/stages/${left[0].id}`);
    await fails(call('DELETE', `/pipelines/${p.id}/stages/${left[1].id}`), 409, 'PIPELINE_NEEDS_A_STAGE');
    await fails(call('PATCH', `/pipelines/${p.id}/stages/${pipeline.stages[0].id}`, { name: 'x' }), 404, 'STAGE_NOT_FOUND');
    await fails(call('POST', `/pipelines/${p.id}/stages`, { name: 'x', probability: 101 }), 400, 'VALIDATION_ERROR');
    await fails(call('POST', '/pipelines', { name: 'Empty', stages: [] }), 400, 'VALIDATION_ERROR');
    expect(await ok(call('PATCH', `/pipelines/${p.id}`, { name: 'Renamed' }))).toMatchObject({ name: 'Renamed', is_default: false });
    expect((await call('DELETE', `/pipelines/${p.id}`)).statusCode).toBe(204);
    await fails(call('GET', `/pipelines/${p.id}`), 404, 'PIPELINE_NOT_FOUND');
  });

  it('has one default pipeline: made on first use, changed by PATCH or create, never deleted', async () => {
    const all = (await call('GET', '/pipelines')).json().data;
    const def = all.find((p: any) => p.is_default);
    expect(def.name).toBe('Sales');
    await fails(call('DELETE', `/pipelines/${def.id}`), 409, 'PIPELINE_IS_DEFAULT');
    expect(await ok(call('PATCH', `/pipelines/${other.id}`, { is_default: true }))).toMatchObject({ is_default: true });
    expect((await ok(call('GET', `/pipelines/${def.id}`))).is_default).toBe(false);
    const made = await ok(call('POST', '/pipelines', { name: 'New default', is_default: true, stages: [{ name: 'Only', probability: 50 }] }), 201);
    const now = (await call('GET', '/pipelines')).json().data;
    expect(now.filter((p: any) => p.is_default).map((p: any) => p.id)).toEqual([made.id]);
    await ok(call('PATCH', `/pipelines/${def.id}`, { is_default: true }));
    await fails(call('PATCH', `/pipelines/${def.id}`, { is_default: false }), 400, 'VALIDATION_ERROR');
    await fails(call('GET', `/pipelines/${(await ok(crmCaller(t, b)('POST', '/pipelines', { name: 'B', stages: [{ name: 'x', probability: 1 }] }), 201)).id}`), 404, 'PIPELINE_NOT_FOUND');
  });
});

describe('deals', () => {
  it('creates a deal in a stage of its pipeline, with the stage probability unless set', async () => {
    const member = await staffMember(t, a);
    const contact = await ok(call('POST', '/contacts', { last_name: 'Vargas' }), 201);
    const account = await ok(call('POST', '/accounts', { name: 'Vargas SAC' }), 201);
    const deal = await ok(crmCaller(t, a, member.token)('POST', '/deals', {
      pipeline_id: pipeline.id, stage_id: pipeline.stages[1].id, contact_id: contact.id, account_id: account.id, title: 'Spring order',
      amount: 350_000, currency: 'USD', expected_close: '2026-12-15T00:00:00Z', tags: ['q4'], metadata: { source: 'fair' },
    }), 201);
    expect(deal).toMatchObject({
      pipeline_id: pipeline.id, stage_id: pipeline.stages[1].id, contact_id: contact.id, account_id: account.id, owner_id: member.id,
      title: 'Spring order', amount: 350_000, currency: 'USD', status: 'open', probability: 40, expected_close: '2026-12-15T00:00:00.000Z',
      lost_reason: null, tags: ['q4'], metadata: { source: 'fair' }, closed_at: null,
    });
    expect(await ok(call('GET', `/deals/${deal.id}`))).toEqual(deal);
    const set = await ok(call('POST', '/deals', { pipeline_id: pipeline.id, title: 'Set', probability: 66 }), 201);
    expect(set).toMatchObject({ stage_id: pipeline.stages[0].id, probability: 66, currency: 'PEN', amount: 0, owner_id: null });
    expect(await ok(call('POST', '/deals', { stage_id: other.stages[0].id, title: 'Stage alone' }), 201)).toMatchObject({ pipeline_id: other.id, stage_id: other.stages[0].id, probability: 20 });
    await fails(call('POST', '/deals', { stage_id: crypto.randomUUID(), title: 'x' }), 422, 'STAGE_NOT_FOUND');
    const anywhere = await ok(call('POST', '/deals', { title: 'Default pipeline' }), 201);
    expect(anywhere.pipeline_id).toBe((await call('GET', '/pipelines')).json().data.find((p: any) => p.is_default).id);
  });

  it('refuses a stage of another pipeline, and references of another store', async () => {
    const error = await fails(call('POST', '/deals', { pipeline_id: pipeline.id, stage_id: other.stages[0].id, title: 'x' }), 422, 'STAGE_NOT_IN_PIPELINE');
    expect(error.details[0].path).toBe('body.stage_id');
    await fails(call('POST', '/deals', { pipeline_id: pipeline.id, stage_id: crypto.randomUUID(), title: 'x' }), 422, 'STAGE_NOT_IN_PIPELINE');
    const theirs = crmCaller(t, b);
    const theirPipeline = await ok(theirs('POST', '/pipelines', { name: 'P', stages: [{ name: 'S', probability: 5 }] }), 201);
    const theirContact = await ok(theirs('POST', '/contacts', { last_name: 'C' }), 201);
    const theirAccount = await ok(theirs('POST', '/accounts', { name: 'A' }), 201);
    await fails(call('POST', '/deals', { pipeline_id: theirPipeline.id, title: 'x' }), 422, 'PIPELINE_NOT_FOUND');
    await fails(call('POST', '/deals', { pipeline_id: pipeline.id, stage_id: theirPipeline.stages[0].id, title: 'x' }), 422, 'STAGE_NOT_IN_PIPELINE');
    await fails(call('POST', '/deals', { title: 'x', contact_id: theirContact.id }), 422, 'CONTACT_NOT_FOUND');
    await fails(call('POST', '/deals', { title: 'x', account_id: theirAccount.id }), 422, 'ACCOUNT_NOT_FOUND');
    await fails(call('POST', '/deals', { title: 'x', owner_id: (await staffMember(t, b)).id }), 422, 'STAFF_NOT_FOUND');
    for (const body of [{}, { title: 'x', amount: -5 }, { title: 'x', amount: 1.5 }, { title: 'x', currency: 'usd' }, { title: 'x', probability: 150 }, { title: 'x', status: 'won' }, { title: 'x', expected_close: 'soon' }]) {
      await fails(call('POST', '/deals', body), 400, 'VALIDATION_ERROR');
    }
    const theirDeal = await ok(theirs('POST', '/deals', { title: 'Theirs' }), 201);
    for (const [method, path, body] of [['GET', '', undefined], ['PATCH', '', { title: 'x' }], ['DELETE', '', undefined], ['POST', '/won', undefined], ['POST', '/lost', { reason: 'x' }], ['POST', '/move', { stage_id: theirPipeline.stages[0].id }], ['POST', '/reopen', undefined]] as const) {
      await fails(call(method, `/deals/${theirDeal.id}${path}`, body), 404, 'DEAL_NOT_FOUND');
    }
  });

  it('changes the fields sent; a new stage brings its probability, a new pipeline needs one of its stages', async () => {
    const deal = await ok(call('POST', '/deals', { pipeline_id: pipeline.id, title: 'Patch me', amount: 100 }), 201);
    expect(await ok(call('PATCH', `/deals/${deal.id}`, { title: 'Patched', amount: 200, expected_close: null }))).toMatchObject({ title: 'Patched', amount: 200, probability: 10, stage_id: pipeline.stages[0].id });
    expect(await ok(call('PATCH', `/deals/${deal.id}`, { stage_id: pipeline.stages[2].id }))).toMatchObject({ stage_id: pipeline.stages[2].id, probability: 80 });
    await fails(call('PATCH', `/deals/${deal.id}`, { stage_id: other.stages[0].id }), 422, 'STAGE_NOT_IN_PIPELINE');
    await fails(call('PATCH', `/deals/${deal.id}`, { pipeline_id: other.id }), 400, 'VALIDATION_ERROR');
    expect(await ok(call('PATCH', `/deals/${deal.id}`, { pipeline_id: other.id, stage_id: other.stages[0].id, probability: 33 }))).toMatchObject({ pipeline_id: other.id, stage_id: other.stages[0].id, probability: 33 });
    await fails(call('PATCH', `/deals/${deal.id}`, { status: 'won' }), 400, 'VALIDATION_ERROR');
    await fails(call('PATCH', `/deals/${crypto.randomUUID()}`, { title: 'x' }), 404, 'DEAL_NOT_FOUND');
    // A stage with deals cannot go, nor can its pipeline.
    await fails(call('DELETE', `/pipelines/${other.id}/stages/${other.stages[0].id}`), 409);
    await fails(call('DELETE', `/pipelines/${other.id}`), 409, 'PIPELINE_IN_USE');
    expect((await call('DELETE', `/deals/${deal.id}`)).statusCode).toBe(204);
    await fails(call('GET', `/deals/${deal.id}`), 404, 'DEAL_NOT_FOUND');
  });

  it('moves, wins, loses (with a reason) and reopens, and refuses the moves a state forbids', async () => {
    const deal = await ok(call('POST', '/deals', { pipeline_id: pipeline.id, title: 'Lifecycle', amount: 1000 }), 201);
    expect(await ok(call('POST', `/deals/${deal.id}/move`, { stage_id: pipeline.stages[1].id }))).toMatchObject({ stage_id: pipeline.stages[1].id, probability: 40 });
    expect(await ok(call('POST', `/deals/${deal.id}/move`, { stage_id: pipeline.stages[2].id, probability: 85 }))).toMatchObject({ stage_id: pipeline.stages[2].id, probability: 85 });
    await fails(call('POST', `/deals/${deal.id}/move`, { stage_id: other.stages[0].id }), 422, 'STAGE_NOT_IN_PIPELINE');
    await fails(call('POST', `/deals/${deal.id}/move`, {}), 400, 'VALIDATION_ERROR');

    const won = await ok(call('POST', `/deals/${deal.id}/won`));
    expect(won).toMatchObject({ status: 'won', probability: 100, lost_reason: null });
    expect(won.closed_at).not.toBeNull();
    await fails(call('POST', `/deals/${deal.id}/won`), 409, 'INVALID_STATE_TRANSITION');
    await fails(call('POST', `/deals/${deal.id}/lost`, { reason: 'x' }), 409, 'INVALID_STATE_TRANSITION');
    await fails(call('POST', `/deals/${deal.id}/move`, { stage_id: pipeline.stages[0].id }), 409, 'INVALID_STATE_TRANSITION');

    expect(await ok(call('POST', `/deals/${deal.id}/reopen`))).toMatchObject({ status: 'open', closed_at: null, probability: 80, stage_id: pipeline.stages[2].id });
    await fails(call('POST', `/deals/${deal.id}/reopen`), 409, 'INVALID_STATE_TRANSITION');
    await fails(call('POST', `/deals/${deal.id}/lost`), 400, 'VALIDATION_ERROR');
    await fails(call('POST', `/deals/${deal.id}/lost`, { reason: '' }), 400, 'VALIDATION_ERROR');
    const lost = await ok(call('POST', `/deals/${deal.id}/lost`, { reason: 'Went with a competitor' }));
    expect(lost).toMatchObject({ status: 'lost', probability: 0, lost_reason: 'Went with a competitor' });
    expect(lost.closed_at).not.toBeNull();
    expect(await ok(call('POST', `/deals/${deal.id}/reopen`))).toMatchObject({ status: 'open', lost_reason: null, closed_at: null });
    const { Database } = await import('@qhatu/core');
    const events = await t.app.container.resolve(Database).query<{ type: string }>(
      `select type from core_outbox where tenant_id = ? and data->>'id' = ? order by occurred_at, id`, [a.id, deal.id]);
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(['crm.deal.created', 'crm.deal.stage_changed', 'crm.deal.won', 'crm.deal.reopened', 'crm.deal.lost']));
  });

  it('lists with every filter and sort of the specification, in pages', async () => {
    const store = await t.createTenant();
    const as = crmCaller(t, store);
    const member = await staffMember(t, store);
    const p1 = await ok(as('POST', '/pipelines', { name: 'One', stages: [{ name: 'S1', probability: 10 }, { name: 'S2', probability: 50 }] }), 201);
    const p2 = await ok(as('POST', '/pipelines', { name: 'Two', stages: [{ name: 'T1', probability: 10 }] }), 201);
    const contact = await ok(as('POST', '/contacts', { last_name: 'C' }), 201);
    const account = await ok(as('POST', '/accounts', { name: 'A' }), 201);
    const specs = [
      { pipeline_id: p1.id, title: 'd0', amount: 500, expected_close: '2027-01-10T00:00:00Z', owner_id: member.id },
      { pipeline_id: p1.id, stage_id: p1.stages[1].id, title: 'd1', amount: 100, contact_id: contact.id },
      { pipeline_id: p2.id, title: 'd2', amount: 900, expected_close: '2026-12-01T00:00:00Z', account_id: account.id },
      { pipeline_id: p1.id, title: 'd3', amount: 300, expected_close: '2027-03-01T00:00:00Z', owner_id: member.id, contact_id: contact.id },
      { pipeline_id: p2.id, title: 'd4', amount: 700, expected_close: '2026-11-30T00:00:00Z' },
    ];
    const deals: any[] = [];
    for (const s of specs) deals.push(await ok(as('POST', '/deals', s), 201));
    await ok(as('POST', `/deals/${deals[2].id}/won`));
    await ok(as('POST', `/deals/${deals[4].id}/lost`, { reason: 'price' }));
    const list = async (q: string) => {
      const res = await as('GET', `/deals${q}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };
    const titles = async (q: string) => (await list(q)).data.map((d: { title: string }) => d.title);
    expect(await titles('')).toEqual(['d4', 'd3', 'd2', 'd1', 'd0']);
    expect(await titles('?sort=amount')).toEqual(['d1', 'd3', 'd0', 'd4', 'd2']);
    expect(await titles('?sort=-amount')).toEqual(['d2', 'd4', 'd0', 'd3', 'd1']);
    // Latest expected close first; a deal without one last.
    expect(await titles('?sort=-expected_close')).toEqual(['d3', 'd0', 'd2', 'd4', 'd1']);
    expect(await titles('?sort=expected_close')).toEqual(['d1', 'd4', 'd2', 'd0', 'd3']);
    expect(await titles(`?filter[pipeline_id]=${p2.id}`)).toEqual(['d4', 'd2']);
    expect(await titles(`?filter[stage_id]=${p1.stages[1].id}`)).toEqual(['d1']);
    expect(await titles(`?filter[owner_id]=${member.id}`)).toEqual(['d3', 'd0']);
    expect(await titles(`?filter[contact_id]=${contact.id}`)).toEqual(['d3', 'd1']);
    expect(await titles(`?filter[account_id]=${account.id}`)).toEqual(['d2']);
    expect(await titles('?filter[status]=open')).toEqual(['d3', 'd1', 'd0']);
    expect(await titles('?filter[status]=won')).toEqual(['d2']);
    expect(await titles(`?filter[status]=lost&filter[pipeline_id]=${p2.id}`)).toEqual(['d4']);
    await fails(as('GET', '/deals?filter[status]=closed'), 400, 'VALIDATION_ERROR');
    await fails(as('GET', '/deals?sort=title'), 400, 'VALIDATION_ERROR');
    await fails(as('GET', '/deals?filter[pipeline_id]=x'), 400, 'VALIDATION_ERROR');
    for (const sort of ['-created_at', 'amount', '-expected_close', 'expected_close']) {
      const first = await list(`?sort=${sort}&limit=2`);
      expect(first.meta.pagination).toMatchObject({ has_next: true, limit: 2 });
      const second = await list(`?sort=${sort}&limit=2&cursor=${first.meta.pagination.cursor}`);
      const third = await list(`?sort=${sort}&limit=2&cursor=${second.meta.pagination.cursor}`);
      expect(third.meta.pagination.has_next).toBe(false);
      expect([...first.data, ...second.data, ...third.data].map((d: { title: string }) => d.title)).toEqual(await titles(`?sort=${sort}`));
    }
    expect((await list('?limit=500')).meta.pagination.limit).toBe(100);
    const { count } = await t.countQueries(() => as('GET', `/deals?sort=-expected_close&filter[owner_id]=${member.id}`));
    expect(count).toBe(3);
    expect(ids((await call('GET', '/deals?limit=100')).json().data)).not.toContain(deals[0].id);
  });
});
