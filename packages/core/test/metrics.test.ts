import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, definePlugin } from '../src/index.js';
import { createTestApp, type TestApp, type TestTenant } from '../src/testing/index.js';
import { notesPlugin } from './fixtures/notes-plugin.js';

const metricsToken = `qhm_${randomBytes(24).toString('base64url')}`;

/** The value of one series of the exposition text, or undefined when it is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

let t: TestApp;
let a: TestTenant;
beforeAll(async () => {
  t = await createTestApp({ plugins: [notesPlugin], env: { QHATU_METRICS_TOKEN: metricsToken } });
  a = await t.createTenant();
});
afterAll(async () => t?.close());

const scrape = (token = metricsToken) => t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } });

describe('GET /metrics', () => {
  it('answers only the metrics token or the platform token, with the contract body otherwise', async () => {
    const none = await t.request({ method: 'GET', url: '/metrics' });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('UNAUTHENTICATED');
    const wrong = await scrape(`qhm_${randomBytes(24).toString('base64url')}`);
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ error: { code: 'UNAUTHENTICATED', message: 'The bearer token is not valid for /metrics', details: [] } });
    expect((await scrape(a.adminToken)).statusCode).toBe(401);
    const byMetricsToken = await scrape();
    expect(byMetricsToken.statusCode).toBe(200);
    expect(byMetricsToken.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect((await scrape(t.platformToken)).statusCode).toBe(200);
  });

  it('counts the requests made, by route pattern and status, with their latency; never a raw URL or a tenant id', async () => {
    const created = await t.request({ method: 'POST', url: '/api/v1/notes', headers: a.headers(), payload: { body: 'counted' } });
    expect(created.statusCode).toBe(201);
    const id = created.json().data.id as string;
    for (let i = 0; i < 2; i++) {
      expect((await t.request({ method: 'POST', url: `/api/v1/notes/${id}/close`, headers: a.headers() })).statusCode).toBe(i === 0 ? 200 : 409);
    }
    expect((await t.request({ method: 'GET', url: `/api/v1/nowhere/${id}` })).statusCode).toBe(404);

    const text = (await scrape()).body;
    expect(sample(text, 'qhatu_http_requests_total{method="POST",route="/api/v1/notes",status_code="201"}')).toBe(1);
    expect(sample(text, 'qhatu_http_requests_total{method="POST",route="/api/v1/notes/:id/close",status_code="200"}')).toBe(1);
    expect(sample(text, 'qhatu_http_requests_total{method="POST",route="/api/v1/notes/:id/close",status_code="409"}')).toBe(1);
    expect(sample(text, 'qhatu_http_requests_total{method="GET",route="unmatched",status_code="404"}')).toBe(1);
    // The tenant and its keys were made through the platform routes.
    expect(sample(text, 'qhatu_http_requests_total{method="POST",route="/api/v1/tenants/:id/api-keys",status_code="201"}')).toBe(2);
    expect(sample(text, 'qhatu_http_request_duration_seconds_count{method="POST",route="/api/v1/notes/:id/close",status_code="200"}')).toBe(1);
    expect(sample(text, 'qhatu_http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/api/v1/notes/:id/close",status_code="200"}')).toBe(1);
    expect(text).not.toContain(id);
    expect(text).not.toContain(a.id);
  });

  it('shows the database pool, the job queue, the outbox and the process', async () => {
    // No workers here: the note's events wait in the outbox, and their dispatch job in the queue.
    await t.request({ method: 'POST', url: '/api/v1/notes', headers: a.headers(), payload: { body: 'waiting' } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const text = (await scrape()).body;
    expect(sample(text, 'qhatu_db_pool_connections{state="max"}')).toBe(4);
    expect(sample(text, 'qhatu_db_pool_connections{state="used"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'qhatu_db_pool_pending_acquires')).toBe(0);
    expect(sample(text, 'qhatu_outbox_pending_events')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'qhatu_outbox_lag_seconds')).toBeGreaterThan(0);
    expect(sample(text, 'qhatu_job_queue_jobs{state="waiting"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'qhatu_job_queue_jobs{state="failed"}')).toBe(0);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  it('is not part of the API document', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths)).not.toContain('/metrics');
  });
});

describe('a metrics port of its own', () => {
  let failing = 0;
  const flaky = definePlugin({
    name: 'flaky',
    jobs: {
      'flaky.work': {
        attempts: 2,
        backoffMs: 10,
        handler: async (data: { fail: boolean }) => {
          if (data.fail) {
            failing++;
            throw new Error('the work failed');
          }
        },
      },
    },
  });
  let w: TestApp;
  let address: string;
  beforeAll(async () => {
    w = await createTestApp({ plugins: [notesPlugin, flaky], workers: true, env: { QHATU_METRICS_PORT: '0' } });
    address = (await w.app.listenMetrics())!;
  });
  afterAll(async () => w?.close());

  it('serves /metrics there without a token (the port is the protection), and not on the API port', async () => {
    expect(address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${address}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('qhatu_http_requests_total');
    const onApi = await w.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${w.platformToken}` } });
    expect(onApi.statusCode).toBe(404);
    const elsewhere = await fetch(`${address}/api/v1/tenants`);
    expect(elsewhere.status).toBe(404);
    expect(((await elsewhere.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });

  it('shows the job runs of a worker process, failures included', async () => {
    await w.app.jobs.add('flaky.work', { fail: false });
    await w.app.jobs.add('flaky.work', { fail: true });
    const deadline = Date.now() + 20_000;
    let text = '';
    while (Date.now() < deadline) {
      text = await (await fetch(`${address}/metrics`)).text();
      if (sample(text, 'qhatu_job_queue_jobs{state="failed"}') === 1 && sample(text, 'qhatu_jobs_total{job="flaky.work",outcome="failed"}') === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(failing).toBe(2);
    expect(sample(text, 'qhatu_jobs_total{job="flaky.work",outcome="completed"}')).toBe(1);
    expect(sample(text, 'qhatu_jobs_total{job="flaky.work",outcome="failed"}')).toBe(2);
    expect(sample(text, 'qhatu_job_queue_jobs{state="failed"}')).toBe(1);
    expect(sample(text, 'qhatu_job_duration_seconds_count{job="flaky.work",outcome="completed"}')).toBe(1);
  });

  it('takes the metrics token there too when one is set', async () => {
    const token = `qhm_${randomBytes(24).toString('base64url')}`;
    const s = await createTestApp({ plugins: [notesPlugin], env: { QHATU_METRICS_PORT: '0', QHATU_METRICS_TOKEN: token } });
    try {
      const at = (await s.app.listenMetrics())!;
      const refused = await fetch(`${at}/metrics`);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('UNAUTHENTICATED');
      // The platform token is for the API, not for a scraper on the metrics port.
      expect((await fetch(`${at}/metrics`, { headers: { authorization: `Bearer ${s.platformToken}` } })).status).toBe(401);
      expect((await fetch(`${at}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('settings', () => {
  it('refuses a short metrics token, a bad port and the API port at start, naming each', async () => {
    await expect(createTestApp({ plugins: [notesPlugin], env: { QHATU_METRICS_TOKEN: 'short', QHATU_METRICS_PORT: 'ninety' } })).rejects.toThrow(ConfigError);
    await expect(createTestApp({ plugins: [notesPlugin], env: { QHATU_METRICS_TOKEN: 'short' } })).rejects.toThrow(/QHATU_METRICS_TOKEN: must be at least 24 characters/);
    await expect(createTestApp({ plugins: [notesPlugin], env: { PORT: '3917', QHATU_METRICS_PORT: '3917' } })).rejects.toThrow(/QHATU_METRICS_PORT: must differ from PORT \(3917\)/);
  });

  it('turns /metrics off with QHATU_METRICS=off', async () => {
    const off = await createTestApp({ plugins: [notesPlugin], env: { QHATU_METRICS: 'off' } });
    try {
      const res = await off.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${off.platformToken}` } });
      expect(res.statusCode).toBe(404);
    } finally {
      await off.close();
    }
  });
});
