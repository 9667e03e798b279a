import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp, loadConfig, type QhatuApp } from '@qhatu/core';
import { createTestApp, type TestApp } from '@qhatu/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import webhooks from '../src/index.js';
import { announcer } from './fixtures/announcer-plugin.js';
import { startReceiver, until } from './fixtures/receiver.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const settings = { QHATU_WEBHOOKS_TIMEOUT_MS: '1000', QHATU_WEBHOOKS_RETRY_BASE_MS: '200', QHATU_WEBHOOKS_SWEEP_MS: '250' };
let t: TestApp | undefined;
let second: QhatuApp | undefined;
afterAll(async () => {
  await second?.close();
  await t?.close();
});

describe('a worker killed in the middle of a delivery', () => {
  it('loses nothing: the delivery is sent again by the next worker, with the same event id', async () => {
    // The API process runs no workers; the first worker runs in a process of its own.
    t = await createTestApp({ plugins: [webhooks, announcer], env: settings });
    const shop = await t.createTenant();
    let held = false;
    const r = await startReceiver(() => (held ? 204 : ((held = true), 'hang')));
    try {
      const sub = (await t.request({ method: 'POST', url: '/api/v1/webhooks', headers: shop.headers(), payload: { url: r.url, events: ['announcer.news.published'] } })).json().data;
      const env = { ...process.env, ...t.app.config.environment, ...settings, LOG_LEVEL: 'silent' };
      const worker = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'fixtures/worker-process.ts')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
      await until(() => new Promise<boolean>((resolve) => worker.stdout!.once('data', () => resolve(true))), 30_000);

      const eventId = (await t.request({ method: 'POST', url: '/api/v1/announce', headers: shop.headers(), payload: { type: 'announcer.news.published', headline: 'Mid-flight' } })).json().event_id;
      await until(() => r.received.length === 1); // the worker is now waiting on the receiver
      worker.kill('SIGKILL');
      await new Promise((res) => worker.once('exit', res));

      second = await createApp({ plugins: [webhooks, announcer], config: loadConfig({ ...t.app.config.environment, ...settings }), workers: true });
      const message = await until(() => r.received[1], 30_000);
      expect(message.headers['webhook-id']).toBe(eventId);
      expect(message.body).toBe(r.received[0].body);
      const delivery = await until(async () => {
        const res = await t!.request({ method: 'GET', url: `/api/v1/webhooks/${sub.id}/deliveries`, headers: shop.headers() });
        return res.json().data[0]?.status === 'delivered' && res.json().data[0];
      });
      expect(delivery.event_id).toBe(eventId);
    } finally {
      await r.close();
    }
  }, 60_000);
});
