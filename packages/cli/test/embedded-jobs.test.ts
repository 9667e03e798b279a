import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runCli, spawnCli, stopLeftovers, tempProject, waitUntil, waitUntilReady, type Running, type TempProject } from './helpers.js';

/**
 * Jobs on `qhatu start` with the embedded database (decision 0050): a job queued on an event starts
 * within a second of the commit, even while a job waits for its time hours ahead (the worker
 * sleeps until then unless the commit wakes it); and work that waits with no worker running makes
 * /health/ready answer 503 naming the queue.
 */
const PROJECT = `import { randomUUID } from 'node:crypto';
import { Database, definePlugin, defineProject, Jobs, OutboxRelay } from '@qhatu/core';

const pongs: Array<{ id: string; at: number }> = [];
const probe = definePlugin({
  name: 'probe',
  events: ['probe.pinged'],
  permissions: [{ name: 'probe.ping', description: 'Ping and read the pongs' }],
  jobs: {
    'probe.pong': async (data: { id: string }) => void pongs.push({ id: data.id, at: Date.now() }),
    'probe.later': async () => undefined,
  },
  register: (container) => container.resolve(OutboxRelay).queueOn('probe.pinged', 'probe.pong'),
  routes: async (app, { container }) => {
    const config = { auth: ['admin'], permission: 'probe.ping' } as const;
    app.post('/probe/ping', { config }, async () => {
      const event = await container.resolve(Database).tenant(async (tx) => tx.publish('probe.pinged', { id: randomUUID() }));
      return { id: event.data.id, committed_at: Date.now() };
    });
    app.post('/probe/later', { config }, async () => ({ id: await container.resolve(Jobs).add('probe.later', {}, { delayMs: 3_600_000 }) }));
    app.get('/probe/pongs', { config }, async () => ({ data: pongs }));
  },
});

export default defineProject({ plugins: [probe] });
`;

let project: TempProject;
let dataDir: string;

beforeAll(async () => {
  project = await tempProject(PROJECT);
  dataDir = path.join(project.dir, 'data');
  // The embedded database made and migrated once, before the starts.
  const migrated = await runCli(['migrate'], { cwd: project.dir, env: { QHATU_DATA_DIR: dataDir, QHATU_ENV: undefined } });
  expect(migrated.stderr).toBe('');
}, 120_000);
afterAll(async () => {
  stopLeftovers();
  await project?.remove();
});

/** Starts the store; its base URL and an admin's headers on a new tenant. */
async function start(args: string[], env: Record<string, string> = {}): Promise<{ server: Running; base: string; admin: Record<string, string> }> {
  const port = await freePort();
  const server = spawnCli(['start', ...args], { cwd: project.dir, env: { QHATU_DATA_DIR: dataDir, QHATU_ENV: undefined, PORT: String(port), ...env } });
  const base = `http://127.0.0.1:${port}`;
  await waitUntilReady(`${base}/health/ready`, server);
  const platform = { authorization: `Bearer ${readFileSync(path.join(dataDir, 'platform-token'), 'utf8').trim()}`, 'content-type': 'application/json' };
  const post = async (url: string, headers: Record<string, string>, body: unknown) => (await fetch(`${base}${url}`, { method: 'POST', headers, body: JSON.stringify(body) })).json() as Promise<{ data: { id: string; token: string } }>;
  const tenant = (await post('/api/v1/tenants', platform, { name: 'Probe store' })).data.id;
  const key = (await post(`/api/v1/tenants/${tenant}/api-keys`, platform, { name: 'Back office', scope: 'admin' })).data.token;
  return { server, base, admin: { authorization: `Bearer ${key}`, 'x-tenant-id': tenant } };
}

async function stop(server: Running): Promise<void> {
  server.child.kill('SIGINT');
  expect((await server.exited).code).toBe(0);
}

describe('jobs on the embedded database', { timeout: 120_000 }, () => {
  it('start a job queued on an event within a second of its commit, one at a time and in a burst', async () => {
    const { server, base, admin } = await start([]);
    try {
      const call = async (method: string, url: string) => (await fetch(`${base}${url}`, { method, headers: admin })).json() as Promise<any>;
      await call('POST', '/api/v1/probe/later');
      const pongOf = async (id: string) => ((await call('GET', '/api/v1/probe/pongs')).data as Array<{ id: string; at: number }>).find((p) => p.id === id);
      for (let i = 0; i < 3; i++) {
        // An idle queue: the worker waits for the next job.
        await new Promise((r) => setTimeout(r, 1500));
        const ping = await call('POST', '/api/v1/probe/ping');
        let pong: { at: number } | undefined;
        await waitUntil(async () => Boolean((pong = await pongOf(ping.id))), server, 10_000);
        expect(pong!.at - ping.committed_at).toBeLessThan(1000);
      }
      const burst = await Promise.all(Array.from({ length: 30 }, () => call('POST', '/api/v1/probe/ping')));
      const sent = Date.now();
      await waitUntil(async () => (await Promise.all(burst.map((p) => pongOf(p.id)))).every(Boolean), server, 20_000);
      expect(Date.now() - sent).toBeLessThan(10_000);
    } finally {
      await stop(server);
    }
  });

  it('answer /health/ready with 503 naming the queue while work waits and no worker runs', async () => {
    const { server, base, admin } = await start(['--no-workers'], { QHATU_QUEUE_STALL_SECONDS: '1' });
    try {
      expect((await fetch(`${base}/health/ready`)).status).toBe(200);
      // The event's dispatch waits for a worker.
      expect((await fetch(`${base}/api/v1/probe/ping`, { method: 'POST', headers: admin })).status).toBe(200);
      let ready: { status: number; body: any } = { status: 0, body: null };
      await waitUntil(async () => {
        const res = await fetch(`${base}/health/ready`);
        ready = { status: res.status, body: await res.json() };
        return ready.status === 503;
      }, server, 10_000);
      expect(ready.body).toMatchObject({
        status: 'unavailable',
        checks: { database: 'ok', queue: 'stalled' },
        queue: { name: 'qhatu', waiting: 1, active: 0, stalled_seconds: expect.any(Number) },
        message: expect.stringContaining('"qhatu"'),
      });
    } finally {
      await stop(server);
    }
  });
});
