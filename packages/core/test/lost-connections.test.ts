import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../src/index.js';
import { createTestApp, type TestApp, type TestTenant } from '../src/testing/index.js';
import { notesPlugin } from './fixtures/notes-plugin.js';
import { probePlugin } from './fixtures/probe-plugin.js';

/**
 * Connections cut with pg_terminate_backend: a transaction that only touched the database and
 * lost its connection before COMMIT runs again; otherwise the answer is a 503 with Retry-After,
 * never a 500 (decision 0051).
 */
let t: TestApp;
let a: TestTenant;
let admin: pg.Client;
const retries: string[] = [];

beforeAll(async () => {
  t = await createTestApp({ plugins: [notesPlugin, probePlugin] });
  t.app.container.resolve(Database).onRetry((reason) => retries.push(reason));
  a = await t.createTenant();
  admin = new pg.Client({ connectionString: t.databaseUrl, application_name: 'connection-killer' });
  await admin.connect();
  // A COMMIT that takes its time: the moment to cut a connection once COMMIT has gone out.
  await admin.query(`
    create function probe_slow_commit() returns trigger language plpgsql as $$
    begin perform pg_sleep(0.5); return null; end $$;
    create constraint trigger probe_slow_commit after insert on test_note deferrable initially deferred
      for each row when (new.body like 'slow-commit%') execute function probe_slow_commit();`);
}, 60_000);
afterAll(async () => {
  await admin?.end();
  await t?.close();
});

/**
 * Terminates the first backend of the app that sleeps (pg_sleep) in a statement matching `pattern`
 * (SQL `like`; the text may be cut short after 1 KB); its pid.
 */
async function killWhenRunning(pattern: string, ms = 5000): Promise<number> {
  const end = Date.now() + ms;
  for (;;) {
    const { rows } = await admin.query<{ pid: number }>(
      `select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
          and state = 'active' and wait_event = 'PgSleep' and query like $1 limit 1`,
      [pattern],
    );
    if (rows[0]) {
      await admin.query('select pg_terminate_backend($1)', [rows[0].pid]);
      return rows[0].pid;
    }
    if (Date.now() > end) throw new Error(`no statement like ${pattern} ran`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function notesWithBody(body: string): Promise<number> {
  const { rows } = await admin.query<{ n: number }>('select count(*)::int as n from test_note where body = $1', [body]);
  return rows[0]!.n;
}

function expectUnavailable(res: { statusCode: number; headers: Record<string, unknown>; json(): any }) {
  expect(res.statusCode).toBe(503);
  expect(res.headers['retry-after']).toBe('1');
  expect(res.json()).toEqual({ error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String), details: [] } });
}

describe('a transaction whose connection is lost', () => {
  it('runs again when it only touched the database and COMMIT had not gone out (tenant and write)', async () => {
    for (const url of ['/api/v1/probe/notes', '/api/v1/probe/notes/fast']) {
      const body = `again-${randomUUID()}`;
      const before = retries.length;
      const [res] = await Promise.all([
        t.request({ method: 'POST', url, headers: a.headers(), payload: { body, hold: 0.4 } }),
        killWhenRunning('%pg_sleep%'),
      ]);
      expect(res.statusCode, res.body).toBe(201);
      expect(await notesWithBody(body)).toBe(1);
      expect(retries.slice(before)).toEqual(['connection']);
      const read = await t.request({ method: 'GET', url: `/api/v1/probe/notes/${res.json().data.id}`, headers: a.headers() });
      expect(read.json().data.body).toBe(body);
    }
  });

  it('answers 503 with Retry-After when its body left the database (a job queued), and nothing is saved', async () => {
    const body = `left-${randomUUID()}`;
    const before = retries.length;
    const [res] = await Promise.all([
      t.request({ method: 'POST', url: '/api/v1/probe/notes', headers: a.headers(), payload: { body, hold: 0.4, queue_job: true } }),
      killWhenRunning('%pg_sleep%'),
    ]);
    expectUnavailable(res);
    expect(res.json().error.message).toMatch(/before anything was saved/);
    expect(await notesWithBody(body)).toBe(0);
    expect(retries.length).toBe(before);
  });

  it('answers 503 without running it again when the connection is lost during COMMIT (its outcome is unknown)', async () => {
    // The ORM path's COMMIT goes out with the outbox rows of its events before it, in one round trip.
    for (const [url, pattern] of [['/api/v1/probe/notes', '%COMMIT;'], ['/api/v1/probe/notes/fast', '%slow-commit%']] as const) {
      const body = `slow-commit-${randomUUID()}`;
      const before = retries.length;
      const [res] = await Promise.all([
        t.request({ method: 'POST', url, headers: a.headers(), payload: { body } }),
        killWhenRunning(pattern),
      ]);
      expectUnavailable(res);
      expect(res.json().error.message).toMatch(/may have been applied/);
      expect(retries.length).toBe(before);
      // Cut while COMMIT ran the trigger: rolled back, and not done a second time.
      expect(await notesWithBody(body)).toBe(0);
    }
  });

  it('answers GraphQL with SERVICE_UNAVAILABLE and Retry-After when it cannot run again', async () => {
    const body = `graphql-${randomUUID()}`;
    const [res] = await Promise.all([
      t.request({ method: 'POST', url: '/graphql', headers: a.headers(), payload: { query: `{ probeHold(body: "${body}", hold: 0.4) }` } }),
      killWhenRunning('%pg_sleep%'),
    ]);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json()).toMatchObject({ data: null, errors: [{ path: ['probeHold'], extensions: { code: 'SERVICE_UNAVAILABLE' } }] });
    expect(await notesWithBody(body)).toBe(0);
  });

  it('runs a transaction again after a deadlock', async () => {
    const db = t.app.container.resolve(Database);
    const ids = [randomUUID(), randomUUID()];
    await admin.query(`insert into test_note (tenant_id, id, body, status, created_at) values ($1, $2, 'x', 'open', now()), ($1, $3, 'y', 'open', now())`, [a.id, ...ids]);
    const before = retries.length;
    // Each locks one note, waits for the other to lock the second, then wants the other's.
    const lockBoth = (first: string, second: string) =>
      db.tenant(async (tx) => {
        await tx.query(`update test_note set status = 'closed' where id = ?`, [first]);
        await tx.query('select pg_sleep(0.2)');
        await tx.query(`update test_note set status = 'closed' where id = ?`, [second]);
        return 'done';
      }, a.id);
    expect(await Promise.all([lockBoth(ids[0]!, ids[1]!), lockBoth(ids[1]!, ids[0]!)])).toEqual(['done', 'done']);
    expect(retries.slice(before)).toEqual(['serialization']);
  });
});

describe('under load while connections are terminated', () => {
  it('answers every request: done (retried if it was hit) or 503 with Retry-After, never 500', async () => {
    const b = await t.createTenant();
    let killing = true;
    let killed = 0;
    const killer = (async () => {
      while (killing) {
        const { rows } = await admin.query<{ n: number }>(
          `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
            where datname = current_database() and pid <> pg_backend_pid()`,
        );
        killed += rows[0]!.n;
        await new Promise((r) => setTimeout(r, 60 + Math.random() * 60));
      }
    })();
    const before = retries.length;
    const created: string[] = [];
    const answers: Array<{ status: number; retryAfter: unknown; code?: string; what: string }> = [];
    const requests: Array<(n: number) => InjectOptions & { url: string }> = [
      (n) => ({ method: 'POST', url: '/api/v1/probe/notes', payload: { body: `load-${n}` }, headers: b.headers() }),
      (n) => ({ method: 'POST', url: '/api/v1/probe/notes/fast', payload: { body: `load-${n}` }, headers: { ...b.headers(), 'idempotency-key': `load-${n}` } }),
      () => ({ method: 'POST', url: '/graphql', payload: { query: '{ notes(limit: 3) { edges { node { id } } } }' }, headers: b.headers() }),
      () => ({ method: 'GET', url: '/api/v1/probe/notes-count', headers: b.headers() }),
      () => ({ method: 'GET', url: '/api/v1/notes?limit=5', headers: b.headers() }),
      (n) => ({ method: 'POST', url: `/api/v1/tenants/${b.id}/api-keys`, payload: { name: `key ${n}`, scope: 'storefront' }, headers: { authorization: `Bearer ${t.platformToken}` } }),
      () => ({ method: 'GET', url: `/api/v1/tenants/${b.id}`, headers: { authorization: `Bearer ${t.platformToken}` } }),
    ];
    let next = 0;
    const worker = async () => {
      for (let n = next++; n < 400; n = next++) {
        const request = requests[n % requests.length]!(n);
        const res = await t.request(request);
        const code = res.statusCode >= 400 ? res.json().error?.code : request.url === '/graphql' ? res.json().errors?.[0]?.extensions.code : undefined;
        // GraphQL answers 200, with the error's code (SERVICE_UNAVAILABLE as over REST) and the same Retry-After.
        const status = code === 'SERVICE_UNAVAILABLE' && res.statusCode === 200 ? 503 : code && res.statusCode === 200 ? 500 : res.statusCode;
        answers.push({ status, retryAfter: res.headers['retry-after'], code, what: `${request.method} ${request.url}` });
        if (res.statusCode === 201 && request.url.includes('/probe/notes')) created.push((request.payload as { body: string }).body);
      }
    };
    try {
      await Promise.all(Array.from({ length: 16 }, worker));
    } finally {
      killing = false;
      await killer;
    }
    const unexpected = answers.filter((x) => ![200, 201, 503].includes(x.status) || (x.status === 503 && (x.retryAfter !== '1' || x.code !== 'SERVICE_UNAVAILABLE')));
    expect(unexpected, JSON.stringify(unexpected)).toEqual([]);
    expect(answers).toHaveLength(400);
    const hit = retries.length - before + answers.filter((x) => x.status === 503).length;
    expect(killed).toBeGreaterThan(0);
    expect(hit).toBeGreaterThan(0);
    // A note answered 201 was saved once, retried or not.
    const { rows } = await admin.query<{ body: string; n: number }>(
      `select body, count(*)::int as n from test_note where tenant_id = $1 group by body`, [b.id]);
    const saved = new Map(rows.map((r) => [r.body, r.n]));
    for (const body of created) expect(saved.get(body), body).toBe(1);
  }, 180_000);
});
