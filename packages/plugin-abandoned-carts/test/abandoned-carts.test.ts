import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Database } from '@qhatu/core';
import type { TestApp } from '@qhatu/core/testing';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbandonedCarts, RecoveryLinks } from '../src/index.js';
import { abandonedApp, cartOf, caller, DAY, HOUR, LIST, listAll, MINUTE, MISSING, shop, TestClock, type Shop } from './helpers.js';

const clock = new TestClock();
let t: TestApp;
let service: AbandonedCarts;
beforeAll(async () => {
  t = await abandonedApp({ clock });
  service = t.app.container.resolve(AbandonedCarts);
});
afterAll(async () => t?.close());

const sweep = (s: Shop) => service.sweep(s.tenant.id);
const idle = () => clock.advance(61 * MINUTE);

async function mailFiles(s: Shop): Promise<string[]> {
  const folder = path.join(t.app.config.dataDir, 'mail', s.tenant.id);
  try {
    return (await readdir(folder)).sort().map((f) => path.join(folder, f));
  } catch {
    return [];
  }
}

describe('the sweep (QHATU_ABANDONED_AFTER_MINUTES=60)', () => {
  it('records carts with items left unchanged for the threshold, once', async () => {
    const s = await shop(t, 1000);
    const plain = await cartOf(s, 2);
    const checkedOut = await cartOf(s, 1, 'Rosa@Example.com');
    const empty = (await s.admin('POST', '/api/v1/checkout/carts', {})).json().data.id as string;
    expect(await sweep(s)).toEqual({ abandoned: 0, recovered: 0 });
    clock.advance(59 * MINUTE);
    expect((await sweep(s)).abandoned).toBe(0);
    clock.advance(2 * MINUTE);
    const fresh = await cartOf(s, 1);
    expect(await sweep(s)).toEqual({ abandoned: 2, recovered: 0 });
    expect(await sweep(s)).toEqual({ abandoned: 0, recovered: 0 });

    const { data } = await listAll(s);
    expect(data.map((c) => c.cart_id).sort()).toEqual([plain.cartId, checkedOut.cartId].sort());
    expect(data.map((c) => c.cart_id)).not.toContain(empty);
    expect(data.map((c) => c.cart_id)).not.toContain(fresh.cartId);
    const one = data.find((c) => c.cart_id === plain.cartId)!;
    expect(one).toMatchObject({ status: 'abandoned', checkout_id: null, email: null, value_cents: 2000, item_count: 2, currency: 'USD', reminder_count: 0, recovered_at: null, recovered_by: null, recovered_value_cents: null, last_reminded_at: null });
    expect(one.abandoned_at).toBe(clock.now().toISOString());
    const two = data.find((c) => c.cart_id === checkedOut.cartId)!;
    expect(two).toMatchObject({ status: 'abandoned', checkout_id: checkedOut.checkoutId, email: 'rosa@example.com', value_cents: 1000 });

    const db = t.app.container.resolve(Database);
    const events = await db.query<{ type: string }>(`select type from core_outbox where tenant_id = ? and type like 'abandoned-carts.%'`, [s.tenant.id]);
    expect(events.map((e) => e.type)).toEqual(['abandoned-carts.cart.abandoned', 'abandoned-carts.cart.abandoned']);
  });

  it('finds already recorded the cart of an abandoned checkout (recorded by the abandon itself)', async () => {
    const s = await shop(t);
    const c = await cartOf(s, 3, 'ana@example.com');
    expect((await s.admin('POST', `/api/v1/checkout/checkouts/${c.checkoutId}/abandon`)).statusCode).toBe(200);
    expect((await listAll(s)).data[0]).toMatchObject({ cart_id: c.cartId, checkout_id: c.checkoutId, value_cents: 3000, status: 'abandoned' });
    expect(await sweep(s)).toEqual({ abandoned: 0, recovered: 0 });
    expect((await listAll(s)).data).toHaveLength(1);
  });

  it('marks recovered (by the shopper) a cart changed after it was recorded, at its new value', async () => {
    const s = await shop(t, 500);
    const changed = await cartOf(s, 1);
    const checkedOut = await cartOf(s, 2);
    const untouched = await cartOf(s, 1);
    idle();
    expect((await sweep(s)).abandoned).toBe(3);
    clock.advance(MINUTE);
    await s.admin('PUT', `/api/v1/checkout/carts/${changed.cartId}/items/${s.variantId}`, { quantity: 4 });
    expect((await s.admin('POST', '/api/v1/checkout/checkouts', { cart_id: checkedOut.cartId, email: 'b@example.com' })).statusCode).toBe(201);
    expect(await sweep(s)).toEqual({ abandoned: 0, recovered: 2 });
    const { data } = await listAll(s);
    const by = (id: string) => data.find((c) => c.cart_id === id)!;
    expect(by(changed.cartId)).toMatchObject({ status: 'recovered', recovered_by: 'shopper', value_cents: 500, recovered_value_cents: 2000, recovered_at: clock.now().toISOString() });
    expect(by(checkedOut.cartId)).toMatchObject({ status: 'recovered', recovered_by: 'shopper', recovered_value_cents: 1000 });
    expect(by(untouched.cartId).status).toBe('abandoned');
    // Recovered is final: a recovered cart left idle again is not recorded a second time.
    idle();
    expect(await sweep(s)).toEqual({ abandoned: 0, recovered: 0 });
  });

  it('sweeps every tenant, each only with its own carts', async () => {
    const a = await shop(t);
    const b = await shop(t);
    const ca = await cartOf(a, 1);
    const cb = await cartOf(b, 1);
    idle();
    const result = await service.sweepAll();
    expect(result.abandoned).toBeGreaterThanOrEqual(2);
    expect((await listAll(a)).data.map((c) => c.cart_id)).toEqual([ca.cartId]);
    expect((await listAll(b)).data.map((c) => c.cart_id)).toEqual([cb.cartId]);
  });
});

describe('GET /admin/abandoned-carts', () => {
  let s: Shop;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    s = await shop(t, 1000);
    // Five carts worth 1000, 2000, 3000, 4000, 5000, recorded by two sweeps.
    const carts = [];
    for (const q of [1, 2, 3]) carts.push(await cartOf(s, q, `c${q}@example.com`));
    idle();
    await sweep(s);
    for (const q of [4, 5]) carts.push(await cartOf(s, q, `c${q}@example.com`));
    idle();
    await sweep(s);
    const { data } = await listAll(s);
    for (const c of data) ids[c.value_cents] = c.id;
    // 1000: reminded twice; 2000: reminded then recovered; 3000: recovered; 4000, 5000: abandoned.
    expect((await s.admin('POST', `${LIST}/${ids[1000]}/send-reminder`)).statusCode).toBe(200);
    // A second reminder once the reminder interval (60 minutes) has passed.
    clock.advance(HOUR);
    expect((await s.admin('POST', `${LIST}/${ids[1000]}/send-reminder`)).statusCode).toBe(200);
    expect((await s.admin('POST', `${LIST}/${ids[2000]}/send-reminder`)).statusCode).toBe(200);
    expect((await s.admin('POST', `${LIST}/${ids[2000]}/recover`)).statusCode).toBe(200);
    expect((await s.admin('POST', `${LIST}/${ids[3000]}/recover`)).statusCode).toBe(200);
  });

  it('answers the carts, newest first, with the metrics of the whole store', async () => {
    const body = await listAll(s);
    // The second sweep's carts (4000, 5000) come before the first's.
    expect(body.data.slice(0, 2).map((c) => c.value_cents).sort()).toEqual([4000, 5000]);
    expect(body.data.slice(2).map((c) => c.value_cents).sort()).toEqual([1000, 2000, 3000]);
    expect(body.metrics).toEqual({
      total_abandoned: 5,
      lost_value_cents: 1000 + 4000 + 5000,
      recovered_count: 2,
      recovered_value_cents: 2000 + 3000,
      recovery_rate: 40,
      reminder_sent_count: 3,
    });
    expect(body.meta.pagination).toEqual({ limit: 25, offset: 0, total: 5, has_next: false });
  });

  it('filters by status; the metrics stay those of the store', async () => {
    const values = async (status: string) => (await listAll(s, `?status=${status}`)).data.map((c) => c.value_cents).sort();
    expect(await values('all')).toEqual([1000, 2000, 3000, 4000, 5000]);
    expect(await values('abandoned')).toEqual([4000, 5000]);
    expect(await values('reminded')).toEqual([1000]);
    expect(await values('recovered')).toEqual([2000, 3000]);
    const recovered = await listAll(s, '?status=recovered');
    expect(recovered.meta.pagination.total).toBe(2);
    expect(recovered.metrics.total_abandoned).toBe(5);
  });

  it('pages with limit and offset', async () => {
    const all = (await listAll(s)).data.map((c) => c.id);
    const p1 = await listAll(s, '?limit=2');
    const p2 = await listAll(s, '?limit=2&offset=2');
    const p3 = await listAll(s, '?limit=2&offset=4');
    const p4 = await listAll(s, '?limit=2&offset=6');
    expect([...p1.data, ...p2.data, ...p3.data].map((c) => c.id)).toEqual(all);
    expect(p1.meta.pagination).toEqual({ limit: 2, offset: 0, total: 5, has_next: true });
    expect(p2.meta.pagination.has_next).toBe(true);
    expect(p3.meta.pagination).toEqual({ limit: 2, offset: 4, total: 5, has_next: false });
    expect(p4.data).toEqual([]);
    expect((await listAll(s, '?status=abandoned&limit=1&offset=1')).data.map((c) => c.value_cents)).toEqual([(await listAll(s, '?status=abandoned')).data[1].value_cents]);
    expect((await listAll(s, '?limit=1000')).meta.pagination.limit).toBe(100);
  });

  it('answers 400 for bad query values and unknown parameters', async () => {
    for (const q of ['limit=0', 'limit=-1', 'limit=abc', 'limit=1.5', 'offset=-1', 'offset=x', 'offset=2.5', 'offset=1000001', 'status=lost', 'status=', 'cursor=abc', 'filter[status]=abandoned', 'sort=-value']) {
      const res = await s.admin('GET', `${LIST}?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().error.code, q).toBe('VALIDATION_ERROR');
    }
  });

  it('gives 0 metrics to a store without abandoned carts', async () => {
    const empty = await shop(t);
    expect(await listAll(empty)).toEqual({
      data: [],
      metrics: { total_abandoned: 0, lost_value_cents: 0, recovered_count: 0, recovered_value_cents: 0, recovery_rate: 0, reminder_sent_count: 0 },
      meta: { pagination: { limit: 25, offset: 0, total: 0, has_next: false } },
    });
  });

  it('rounds the recovery rate to two decimals', async () => {
    const s3 = await shop(t);
    for (let i = 0; i < 3; i++) await cartOf(s3, 1);
    idle();
    await sweep(s3);
    const [first] = (await listAll(s3)).data;
    await s3.admin('POST', `${LIST}/${first.id}/recover`);
    expect((await listAll(s3)).metrics.recovery_rate).toBe(33.33);
  });
});

describe('POST /admin/abandoned-carts/:id/send-reminder', () => {
  it('e-mails a recovery link (an .eml file in the data folder) and marks the cart reminded', async () => {
    const s = await shop(t, 1250);
    const c = await cartOf(s, 2, 'Lucia@Example.com');
    idle();
    await sweep(s);
    const [record] = (await listAll(s)).data;
    const res = await s.admin('POST', `${LIST}/${record.id}/send-reminder`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ id: record.id, status: 'reminded', reminder_count: 1, last_reminded_at: clock.now().toISOString() });

    const files = await mailFiles(s);
    expect(files).toHaveLength(1);
    const mail = await simpleParser(await readFile(files[0]));
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.value[0].address : null).toBe('lucia@example.com');
    expect(mail.from?.value[0]).toMatchObject({ name: 'Qhatu', address: 'no-reply@localhost' });
    expect(mail.subject).toContain('you left 2 items in your cart');
    expect(mail.text).toContain('$25.00');
    const link = /(\S+\/api\/v1\/abandoned-carts\/restore\?token=\S+)/.exec(mail.text ?? '')![1];
    expect(link.startsWith(`${t.app.config.publicUrl}/api/v1/abandoned-carts/restore?token=`)).toBe(true);
    expect(mail.html).toContain(`href="${link}"`);
    const token = new URL(link).searchParams.get('token')!;
    const links = t.app.container.resolve(RecoveryLinks);
    const claim = links.verify(token);
    expect(claim).toMatchObject({ tenantId: s.tenant.id, cartId: c.cartId });
    // A token cannot be altered.
    const at = token.length - 5;
    const flipped = token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
    expect(flipped).not.toBe(token);
    expect(links.verify(flipped)).toBeNull();
    expect(links.verify('nonsense')).toBeNull();

    // Again at once: refused, nothing sent; once the interval has passed, a second e-mail, counted.
    const soon = await s.admin('POST', `${LIST}/${record.id}/send-reminder`);
    expect(soon.statusCode).toBe(409);
    const sentAt = clock.now();
    expect(soon.json().error).toMatchObject({
      code: 'REMINDER_ALREADY_SENT',
      details: [{ last_reminded_at: sentAt.toISOString(), next_reminder_at: new Date(sentAt.getTime() + HOUR).toISOString() }],
    });
    expect(await mailFiles(s)).toHaveLength(1);
    clock.advance(HOUR - 1000);
    expect((await s.admin('POST', `${LIST}/${record.id}/send-reminder`)).json().error.code).toBe('REMINDER_ALREADY_SENT');
    clock.advance(1000);
    const again = await s.admin('POST', `${LIST}/${record.id}/send-reminder`);
    expect(again.json().data).toMatchObject({ status: 'reminded', reminder_count: 2 });
    expect(await mailFiles(s)).toHaveLength(2);
    expect((await listAll(s)).metrics.reminder_sent_count).toBe(2);
  });

  it('is 422 CART_EMAIL_MISSING for a cart that never reached checkout (nothing sent, nothing changed)', async () => {
    const s = await shop(t);
    await cartOf(s, 1);
    idle();
    await sweep(s);
    const [record] = (await listAll(s)).data;
    const res = await s.admin('POST', `${LIST}/${record.id}/send-reminder`);
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('CART_EMAIL_MISSING');
    expect(await mailFiles(s)).toEqual([]);
    expect((await listAll(s)).data[0]).toMatchObject({ status: 'abandoned', reminder_count: 0 });
  });

  it('is 409 INVALID_STATE_TRANSITION for a recovered cart, 404 for an unknown one, 400 for a malformed id', async () => {
    const s = await shop(t);
    await cartOf(s, 1, 'x@example.com');
    idle();
    await sweep(s);
    const [record] = (await listAll(s)).data;
    await s.admin('POST', `${LIST}/${record.id}/recover`);
    const res = await s.admin('POST', `${LIST}/${record.id}/send-reminder`);
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('INVALID_STATE_TRANSITION');
    expect(await mailFiles(s)).toEqual([]);
    const unknown = await s.admin('POST', `${LIST}/${MISSING}/send-reminder`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('ABANDONED_CART_NOT_FOUND');
    expect((await s.admin('POST', `${LIST}/not-a-uuid/send-reminder`)).statusCode).toBe(400);
  });
});

describe('POST /admin/abandoned-carts/:id/recover', () => {
  it('marks an abandoned or reminded cart recovered by the admin; recovered is final', async () => {
    const s = await shop(t, 700);
    await cartOf(s, 1, 'a@example.com');
    await cartOf(s, 2);
    idle();
    await sweep(s);
    const { data } = await listAll(s);
    const reminded = data.find((c) => c.value_cents === 700)!;
    const abandoned = data.find((c) => c.value_cents === 1400)!;
    await s.admin('POST', `${LIST}/${reminded.id}/send-reminder`);
    for (const [record, value] of [[reminded, 700], [abandoned, 1400]] as const) {
      const res = await s.admin('POST', `${LIST}/${record.id}/recover`);
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({ id: record.id, status: 'recovered', recovered_by: 'admin', recovered_value_cents: value, recovered_at: clock.now().toISOString() });
      const twice = await s.admin('POST', `${LIST}/${record.id}/recover`);
      expect(twice.statusCode).toBe(409);
      expect(twice.json().error.code).toBe('INVALID_STATE_TRANSITION');
    }
    const unknown = await s.admin('POST', `${LIST}/${MISSING}/recover`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('ABANDONED_CART_NOT_FOUND');
    expect((await s.admin('POST', `${LIST}/12345/recover`)).statusCode).toBe(400);
  });
});

describe('auth and tenant isolation', () => {
  let a: Shop;
  let b: Shop;
  let recordA: string;
  beforeAll(async () => {
    a = await shop(t);
    b = await shop(t);
    await cartOf(a, 1, 'a@example.com');
    await cartOf(b, 1, 'b@example.com');
    idle();
    await sweep(a);
    await sweep(b);
    recordA = (await listAll(a)).data[0].id;
  });

  it('takes admin keys only', async () => {
    const store = caller(t, a.tenant, a.tenant.storefrontToken);
    for (const [method, url] of [['GET', LIST], ['POST', `${LIST}/${recordA}/send-reminder`], ['POST', `${LIST}/${recordA}/recover`]] as const) {
      const forbidden = await store(method, url);
      expect(forbidden.statusCode, url).toBe(403);
      const anonymous = await t.request({ method, url, headers: { 'x-tenant-id': a.tenant.id } });
      expect(anonymous.statusCode, url).toBe(401);
      const noTenant = await t.request({ method, url, headers: { authorization: `Bearer ${a.tenant.adminToken}` } });
      expect(noTenant.statusCode, url).toBeGreaterThanOrEqual(400);
    }
    expect((await listAll(a)).data[0]).toMatchObject({ status: 'abandoned', reminder_count: 0 });
    expect(await mailFiles(a)).toEqual([]);
  });

  it("tenant B's admin key neither lists nor reminds nor recovers tenant A's carts", async () => {
    const listed = await listAll(b);
    expect(listed.data.map((c) => c.id)).not.toContain(recordA);
    expect(listed.metrics.total_abandoned).toBe(1);
    for (const action of ['send-reminder', 'recover']) {
      const res = await b.admin('POST', `${LIST}/${recordA}/${action}`);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('ABANDONED_CART_NOT_FOUND');
    }
    // A's key with B's tenant header is refused.
    const crossed = await t.request({ method: 'GET', url: LIST, headers: { authorization: `Bearer ${a.tenant.adminToken}`, 'x-tenant-id': b.tenant.id } });
    expect(crossed.statusCode).toBe(403);
    expect((await listAll(a)).data[0]).toMatchObject({ id: recordA, status: 'abandoned' });
    expect(await mailFiles(a)).toEqual([]);
    expect(await mailFiles(b)).toEqual([]);
  });
});

describe('OpenAPI', () => {
  it('documents the three routes', async () => {
    const res = await t.request({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const paths = res.json().paths;
    expect(Object.keys(paths)).toEqual(expect.arrayContaining([LIST, `${LIST}/{id}/send-reminder`, `${LIST}/{id}/recover`]));
    expect(res.json().components.schemas.AbandonedCartMetrics).toBeDefined();
  });
});

// Last: moves the clock past every cart's lifetime.
describe('expired carts', () => {
  it('are not recorded, and a recorded one cannot be reminded (410 CART_EXPIRED)', async () => {
    const s = await shop(t);
    await cartOf(s, 1, 'late@example.com');
    idle();
    await sweep(s);
    const [record] = (await listAll(s)).data;
    const never = await cartOf(s, 1);
    clock.advance(8 * DAY);
    expect((await sweep(s)).abandoned).toBe(0);
    expect((await listAll(s)).data.map((c) => c.cart_id)).not.toContain(never.cartId);
    const res = await s.admin('POST', `${LIST}/${record.id}/send-reminder`);
    expect(res.statusCode).toBe(410);
    expect(res.json().error.code).toBe('CART_EXPIRED');
    expect(await mailFiles(s)).toEqual([]);
    // It can still be marked recovered (e.g. the order was taken by phone).
    expect((await s.admin('POST', `${LIST}/${record.id}/recover`)).statusCode).toBe(200);
  });
});
