import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../src/testing/index.js';
import { jobLog, notesPlugin } from './fixtures/notes-plugin.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ plugins: [notesPlugin], workers: true, env: { REDIS_URL: redisUrl, QHATU_QUEUE_PREFIX: `qhatu-test-${randomBytes(4).toString('hex')}` } });
});
afterAll(async () => t?.close());

describe('jobs on Redis (REDIS_URL)', () => {
  it('run queued jobs, and the readiness check covers Redis', async () => {
    const tenant = await t.createTenant();
    expect((await t.request({ method: 'GET', url: '/health/ready' })).json().checks.queue).toBe('ok');
    await t.request({ method: 'POST', url: '/api/v1/notes/echo', headers: tenant.headers() });
    const end = Date.now() + 10_000;
    while (!jobLog.includes(`${tenant.id}:hello`) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect(jobLog).toContain(`${tenant.id}:hello`);
  });
});
