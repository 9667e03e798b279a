import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from '@qhatu/core/testing';
import webhooks from '@qhatu/plugin-webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { B2B, b2bApp, company, product, quote, store, type Store } from './helpers.js';

// Quote events go through the outbox to a webhook subscription: a receiver on 127.0.0.1 gets them signed.
const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(204).end();
  });
});
const SECRET = 'a receiver secret of this store';

let t: TestApp;
let s: Store;
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t = await b2bApp({ extra: [webhooks], workers: true });
  s = await store(t);
});
afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

async function until<T>(probe: () => T | undefined, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('quote events', () => {
  it('are delivered to webhook subscriptions as signed CloudEvents', async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const sub = await s.admin('POST', '/api/v1/webhooks', { url, events: ['b2b.quote.sent', 'b2b.quote.accepted', 'b2b.quote.rejected', 'b2b.quote.converted', 'b2b.quote.created'], secret: SECRET });
    expect(sub.statusCode).toBe(201);
    const c = await company(s);
    const q = await quote(s, c.id, [{ variant_id: (await product(s, 2500)).variantId, quantity: 2 }]);
    expect((await s.admin('POST', `${B2B}/quotes/${q.id}/send`)).statusCode).toBe(200);
    expect((await s.admin('POST', `${B2B}/quotes/${q.id}/accept`)).statusCode).toBe(200);
    const events = await until(() => (received.length >= 3 ? received.map((r) => ({ ...r, event: JSON.parse(r.body) })) : undefined));
    expect(events.map((e) => e.event.type).sort()).toEqual(['b2b.quote.accepted', 'b2b.quote.created', 'b2b.quote.sent']);
    for (const e of events) {
      expect(e.headers['content-type']).toBe('application/cloudevents+json');
      expect(e.event).toMatchObject({ specversion: '1.0', source: '/qhatu/b2b', data: expect.objectContaining({ id: q.id, number: q.number, total: 5000 }) });
      const signed = `${e.headers['webhook-id']}.${e.headers['webhook-timestamp']}.${e.body}`;
      expect(e.headers['webhook-signature']).toBe(`v1,${createHmac('sha256', SECRET).update(signed).digest('base64')}`);
    }
  });
});
