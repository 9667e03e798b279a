import { createServer } from 'node:net';
import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbandonedCarts } from '../src/index.js';
import { abandonedApp, cartOf, LIST, listAll, MINUTE, shop, TestClock } from './helpers.js';

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

const clock = new TestClock();
let t: TestApp;
beforeAll(async () => {
  t = await abandonedApp({ clock, env: { SMTP_URL: `smtp://127.0.0.1:${await closedPort()}` } });
});
afterAll(async () => t?.close());

describe('a reminder the mail server does not take', () => {
  it('is 502 MAIL_DELIVERY_FAILED and changes nothing', async () => {
    const s = await shop(t);
    await cartOf(s, 1, 'a@example.com');
    clock.advance(61 * MINUTE);
    await t.app.container.resolve(AbandonedCarts).sweep(s.tenant.id);
    const [record] = (await listAll(s)).data;
    const res = await s.admin('POST', `${LIST}/${record.id}/send-reminder`);
    expect(res.statusCode).toBe(502);
    expect(res.json().error.code).toBe('MAIL_DELIVERY_FAILED');
    const after = await listAll(s);
    expect(after.data[0]).toMatchObject({ status: 'abandoned', reminder_count: 0, last_reminded_at: null });
    expect(after.metrics.reminder_sent_count).toBe(0);
  });
});
