import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Jobs } from '../src/index.js';
import { createTestApp, type TestApp } from '../src/testing/index.js';
import { notesPlugin } from './fixtures/notes-plugin.js';

/**
 * /health/ready answers 503 naming the queue once work has waited with nothing running for
 * QHATU_QUEUE_STALL_SECONDS (here half a second), on either queue; new work arriving behind it
 * does not hide the wait of the job at the head.
 */
const queues: Array<[string, Record<string, string>]> = [
  ['PostgreSQL', {}],
  ['Redis', { REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', QHATU_QUEUE_PREFIX: `qhatu-test-${randomBytes(4).toString('hex')}` }],
];

describe.each(queues)('readiness on the %s queue', (_name, env) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ plugins: [notesPlugin], workers: false, env: { ...env, QHATU_QUEUE_STALL_SECONDS: '0.5' } });
  }, 60_000);
  afterAll(async () => t?.close());

  const ready = async () => {
    const res = await t.request({ method: 'GET', url: '/health/ready' });
    return { status: res.statusCode, body: res.json() };
  };

  it('answers 503 naming the queue while work waits with no worker, and 200 once it runs', async () => {
    expect(await ready()).toEqual({ status: 200, body: { status: 'ok', checks: { database: 'ok', queue: 'ok' } } });
    const jobs = t.app.container.resolve(Jobs);
    await jobs.add('notes.echo', { text: 'first' });
    expect((await ready()).status).toBe(200);
    await new Promise((r) => setTimeout(r, 700));
    await jobs.add('notes.echo', { text: 'second' });
    const stalled = await ready();
    expect(stalled).toEqual({
      status: 503,
      body: {
        status: 'unavailable',
        checks: { database: 'ok', queue: 'stalled' },
        queue: { name: 'qhatu', waiting: 2, active: 0, stalled_seconds: 0 },
        message: '2 job(s) have waited in the queue "qhatu" for 0 s with none running',
      },
    });
    await jobs.startWorkers();
    const end = Date.now() + 10_000;
    while ((await ready()).status !== 200 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect(await ready()).toEqual({ status: 200, body: { status: 'ok', checks: { database: 'ok', queue: 'ok' } } });
  });
});
