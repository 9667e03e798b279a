import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBus, Jobs, OUTBOX_DISPATCH_JOB, OutboxRelay, type DomainEvent } from '../src/index.js';
import { createTestApp, type TestApp, type TestTenant } from '../src/testing/index.js';
import { jobLog, notesPlugin } from './fixtures/notes-plugin.js';

let t: TestApp;
let a: TestTenant;
const delivered: DomainEvent[] = [];
beforeAll(async () => {
  t = await createTestApp({ plugins: [notesPlugin], workers: true });
  t.app.container.resolve(OutboxRelay).subscribe((event) => void delivered.push(event));
  a = await t.createTenant();
});
afterAll(async () => t?.close());

async function eventually<T>(probe: () => T | undefined, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('jobs and the outbox relay', () => {
  it('run a queued job in the tenant it was queued for', async () => {
    await t.request({ method: 'POST', url: '/api/v1/notes/echo', headers: a.headers() });
    expect(await eventually(() => jobLog.find((l) => l === `${a.id}:hello`))).toBeDefined();
  });

  it('hand committed events to outbox subscribers and mark them published', async () => {
    const n = (await t.request({ method: 'POST', url: '/api/v1/notes', headers: a.headers(), payload: { body: 'relay me' } })).json().data;
    const event = await eventually(() => delivered.find((e) => e.data.id === n.id));
    expect(event).toMatchObject({ type: 'notes.note.created', tenantId: a.id, source: '/qhatu/notes' });
    const publishedAt = async () =>
      (await t.app.orm.em.getConnection().execute<{ published_at: Date | null }[]>(
        'select published_at from core_outbox where id = ?', [event.id]))[0].published_at;
    const end = Date.now() + 10_000;
    while (!(await publishedAt()) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect(await publishedAt()).not.toBeNull();
  });

  it('sweeps events whose dispatch was never queued', async () => {
    const id = '11111111-1111-4111-8111-111111111111';
    await t.app.orm.em.getConnection().execute(
      `insert into core_outbox (tenant_id, id, type, source, data, occurred_at) values (?, ?, 'notes.note.created', '/qhatu/notes', ?, now() - interval '1 minute')`,
      [a.id, id, JSON.stringify({ id: 'swept' })],
    );
    const count = await t.app.container.resolve(OutboxRelay).dispatch();
    expect(count).toBeGreaterThanOrEqual(1);
    expect(delivered.find((e) => e.id === id)?.data).toEqual({ id: 'swept' });
    expect(await t.app.container.resolve(OutboxRelay).dispatch()).toBe(0);
  });

  it('queues one dispatch job for events committed close together', async () => {
    const ids = ['22222222-2222-4222-8222-222222222221', '22222222-2222-4222-8222-222222222222', '22222222-2222-4222-8222-222222222223'];
    const events: DomainEvent[] = [];
    for (const id of ids) {
      await t.app.orm.em.getConnection().execute(
        `insert into core_outbox (tenant_id, id, type, source, data, occurred_at) values (?, ?, 'notes.note.created', '/qhatu/notes', ?, now())`,
        [a.id, id, JSON.stringify({ id: `close-${id}` })],
      );
      events.push({ id, type: 'notes.note.created', source: '/qhatu/notes', tenantId: a.id, time: new Date(), data: { id: `close-${id}` } });
    }
    const jobs = t.app.container.resolve(Jobs);
    const queued: unknown[] = [];
    const add = jobs.add.bind(jobs);
    jobs.add = (name, data, opts) => {
      if (name === OUTBOX_DISPATCH_JOB) queued.push(data);
      return add(name, data, opts);
    };
    try {
      // Three commits in a row, as three requests finishing at once.
      const bus = t.app.container.resolve(EventBus);
      await Promise.all(events.map((event) => bus.committed([event])));
      for (const id of ids) await eventually(() => delivered.find((e) => e.id === id));
      expect(queued).toEqual([{ ids, tenants: [a.id] }]);
    } finally {
      jobs.add = add;
    }
  });
});
