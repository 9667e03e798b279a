import { HTTP } from 'cloudevents';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import webhooks from '../src/index.js';
import { announcer } from './fixtures/announcer-plugin.js';
import { startReceiver, until, type Received } from './fixtures/receiver.js';

const SECRET = `whsec_${Buffer.from('a secret of the tenant, 32 bytes').toString('base64')}`;
let t: TestApp;
let shop: TestTenant;
const receivers: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  t = await createTestApp({
    plugins: [webhooks, announcer],
    workers: true,
    env: { QHATU_WEBHOOKS_TIMEOUT_MS: '1500', QHATU_WEBHOOKS_RETRY_BASE_MS: '150', QHATU_WEBHOOKS_MAX_ATTEMPTS: '4', QHATU_WEBHOOKS_SWEEP_MS: '300' },
  });
  shop = await t.createTenant();
});
afterAll(async () => {
  await t?.close();
  for (const r of receivers) await r.close();
});

async function receiver(answer?: (n: number) => number | 'hang') {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}
const subscribe = async (url: string, events = ['announcer.news.published']) =>
  (await t.request({ method: 'POST', url: '/api/v1/webhooks', headers: shop.headers(), payload: { url, events, secret: SECRET } })).json().data;
const announce = async (headline: string, type = 'announcer.news.published') =>
  (await t.request({ method: 'POST', url: '/api/v1/announce', headers: shop.headers(), payload: { type, headline } })).json().event_id as string;
const deliveries = async (subscriptionId: string) =>
  (await t.request({ method: 'GET', url: `/api/v1/webhooks/${subscriptionId}/deliveries`, headers: shop.headers() })).json().data;

/** `qhatu_webhook_deliveries_total` by outcome, from /metrics. */
async function outcomes() {
  const text = (await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${t.platformToken}` } })).body;
  const of = (outcome: string) => Number(new RegExp(`^qhatu_webhook_deliveries_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  return { delivered: of('delivered'), failed: of('failed'), dead: of('dead') };
}

function verify(message: Received) {
  const headers = message.headers as Record<string, string>;
  new Webhook(SECRET).verify(message.body, headers); // throws when the signature is wrong
  return HTTP.toEvent({ headers, body: message.body }) as unknown as { id: string; type: string; source: string; data: Record<string, unknown>; tenantid: string };
}

describe('deliveries', () => {
  it('send subscribed events as signed CloudEvents (structured mode, Standard Webhooks)', async () => {
    const r = await receiver();
    const sub = await subscribe(r.url);
    const eventId = await announce('Alpaca season');
    await announce('Not subscribed', 'announcer.news.retracted');
    const message = await until(() => r.received[0]);
    expect(message.headers['content-type']).toBe('application/cloudevents+json');
    expect(message.headers['webhook-id']).toBe(eventId);
    const event = verify(message);
    expect(event).toMatchObject({ id: eventId, type: 'announcer.news.published', source: '/qhatu/announcer', tenantid: shop.id, data: { headline: 'Alpaca season' } });
    expect(JSON.parse(message.body)).toMatchObject({ specversion: '1.0', datacontenttype: 'application/json' });

    const [delivery] = await until(async () => {
      const list = await deliveries(sub.id);
      return list[0]?.status === 'delivered' && list;
    });
    expect(delivery).toMatchObject({ event_id: eventId, event_type: 'announcer.news.published', status: 'delivered', attempts: 1, response_status: 204 });
    expect(delivery.attempt_log[0]).toMatchObject({ number: 1, trigger: 'automatic', response_status: 204, error: null });
    await new Promise((res) => setTimeout(res, 400));
    expect(r.received).toHaveLength(1); // the retracted event was not subscribed to
  });

  it('retry a failing receiver with growing delays, then mark the delivery dead; a manual retry resends it unchanged', async () => {
    const before = await outcomes();
    let healthy = false;
    const r = await receiver(() => (healthy ? 200 : 503));
    const sub = await subscribe(r.url);
    await announce('Failing');
    const [dead] = await until(async () => {
      const list = await deliveries(sub.id);
      return list[0]?.status === 'dead' && list;
    });
    expect(dead.attempts).toBe(4);
    expect(dead.attempt_log.map((a: { response_status: number }) => a.response_status)).toEqual([503, 503, 503, 503]);
    expect(dead.last_error).toBe('the receiver answered 503');
    const gaps = r.received.slice(1).map((m, i) => m.at - r.received[i].at);
    expect(gaps).toHaveLength(3);
    // Each retry waits at least its delay, 150 ms, 300 ms, 600 ms less 20 % jitter (a busy machine only adds to it).
    expect(gaps[0]).toBeGreaterThanOrEqual(120);
    expect(gaps[1]).toBeGreaterThanOrEqual(240);
    expect(gaps[2]).toBeGreaterThanOrEqual(480);

    healthy = true;
    const retried = await t.request({ method: 'POST', url: `/api/v1/webhooks/${sub.id}/deliveries/${dead.id}/retry`, headers: shop.headers() });
    expect(retried.statusCode).toBe(200);
    expect(retried.json().data).toMatchObject({ status: 'delivered', attempts: 5, response_status: 200 });
    expect(retried.json().data.attempt_log.at(-1)).toMatchObject({ number: 5, trigger: 'manual' });
    const [first, last] = [r.received[0], r.received.at(-1)!];
    expect(last.body).toBe(first.body);
    for (const h of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) expect(last.headers[h]).toBe(first.headers[h]);

    const again = await t.request({ method: 'POST', url: `/api/v1/webhooks/${sub.id}/deliveries/${dead.id}/retry`, headers: shop.headers() });
    expect(again.statusCode).toBe(409);
    // Every attempt counted by its outcome: three failures, the fourth gave up, the manual retry
    // delivered (and so did the first test's subscription, which gets this event too).
    const after = await outcomes();
    expect({ delivered: after.delivered - before.delivered, failed: after.failed - before.failed, dead: after.dead - before.dead }).toEqual({ delivered: 2, failed: 3, dead: 1 });
    expect(again.json().error.code).toBe('INVALID_STATE_TRANSITION');
  });

  it('do not let a receiver that hangs hold up the others', async () => {
    const stuck = await receiver(() => 'hang');
    const fine = await receiver();
    const stuckSub = await subscribe(stuck.url, ['announcer.news.published']);
    await subscribe(fine.url, ['announcer.news.retracted']);
    await announce('For the stuck one');
    await until(() => stuck.received[0]); // a worker is now held by the stuck receiver
    await announce('For the fine one', 'announcer.news.retracted');
    await until(() => fine.received[0]);
    // The fine receiver was served while the stuck one still held its request open.
    expect((await deliveries(stuckSub.id))[0].attempts).toBe(0);
    const [timedOut] = await until(async () => {
      const list = await deliveries(stuckSub.id);
      return list[0]?.attempts >= 1 && list;
    });
    expect(timedOut.attempt_log[0].error).toMatch(/no answer within 1500 ms/);
  });

  it('lists deliveries by status and 404s a delivery of another subscription', async () => {
    const r = await receiver();
    const sub = await subscribe(r.url);
    const other = await subscribe(r.url);
    await announce('Listed');
    const delivered = await until(async () => {
      const res = await t.request({ method: 'GET', url: `/api/v1/webhooks/${sub.id}/deliveries?filter[status]=delivered`, headers: shop.headers() });
      return res.json().data.length === 1 && res.json().data;
    });
    const none = await t.request({ method: 'GET', url: `/api/v1/webhooks/${sub.id}/deliveries?filter[status]=dead`, headers: shop.headers() });
    expect(none.json().data).toEqual([]);
    expect((await t.request({ method: 'GET', url: `/api/v1/webhooks/${sub.id}/deliveries?filter[status]=lost`, headers: shop.headers() })).statusCode).toBe(400);
    const cross = await t.request({ method: 'POST', url: `/api/v1/webhooks/${other.id}/deliveries/${delivered[0].id}/retry`, headers: shop.headers() });
    expect(cross.statusCode).toBe(404);
    expect(cross.json().error.code).toBe('DELIVERY_NOT_FOUND');
  });

  it('refuse, at delivery time, an address the operator no longer allows', async () => {
    const strict = await createTestApp({ plugins: [webhooks, announcer], workers: true, env: { QHATU_WEBHOOKS_ALLOW_PRIVATE: 'false', QHATU_WEBHOOKS_MAX_ATTEMPTS: '1' } });
    try {
      const tenant = await strict.createTenant();
      const r = await receiver();
      // Registered while private receivers were allowed: written as the earlier policy let it be.
      const sub = await strict.request({ method: 'POST', url: '/api/v1/webhooks', headers: tenant.headers(), payload: { url: 'https://93.184.215.14/x', events: ['announcer.news.published'] } });
      await strict.app.orm.em.getConnection().execute('update webhooks_subscription set url = ? where id = ?', [r.url, sub.json().data.id]);
      await strict.request({ method: 'POST', url: '/api/v1/announce', headers: tenant.headers(), payload: { type: 'announcer.news.published', headline: 'x' } });
      const [dead] = await until(async () => {
        const res = await strict.request({ method: 'GET', url: `/api/v1/webhooks/${sub.json().data.id}/deliveries`, headers: tenant.headers() });
        return res.json().data[0]?.status === 'dead' && res.json().data;
      });
      expect(dead.last_error).toMatch(/not allowed/);
      expect(r.received).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });
});

describe('a subscription made while events wait for the relay', () => {
  it('gets only the events that happened after it was made', async () => {
    // Workers off: the outbox keeps what is announced until the relay starts.
    const late = await createTestApp({ plugins: [webhooks, announcer], env: { QHATU_WEBHOOKS_SWEEP_MS: '300' } });
    try {
      const store = await late.createTenant();
      const post = (url: string, payload: object) => late.request({ method: 'POST', url, headers: store.headers(), payload });
      await post('/api/v1/announce', { type: 'announcer.news.published', headline: 'Before' });
      await new Promise((res) => setTimeout(res, 20));
      const r = await receiver();
      expect((await post('/api/v1/webhooks', { url: r.url, events: ['announcer.news.published'], secret: SECRET })).statusCode).toBe(201);
      const after = (await post('/api/v1/announce', { type: 'announcer.news.published', headline: 'After' })).json().event_id;
      await late.app.jobs.startWorkers();
      const message = await until(() => r.received[0]);
      expect(JSON.parse(message.body)).toMatchObject({ id: after, data: { headline: 'After' } });
      await new Promise((res) => setTimeout(res, 500));
      expect(r.received).toHaveLength(1);
    } finally {
      await late.close();
    }
  });
});
