import { startMailbox, type Mailbox, type TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbandonedCarts, RecoveryLinks } from '../src/index.js';
import { abandonedApp, cartOf, DAY, LIST, listAll, MINUTE, shop, TestClock, type Shop } from './helpers.js';

// The abandon records the cart in its own transaction; the reminder's link (sent over SMTP to a
// server this test runs) opens the cart again through the restore endpoint.
let mailbox: Mailbox;

const clock = new TestClock();
let t: TestApp;
beforeAll(async () => {
  mailbox = await startMailbox();
  t = await abandonedApp({ clock, env: { SMTP_URL: mailbox.url } });
});
afterAll(async () => {
  await t?.close();
  await mailbox?.close();
});

const CHECKOUTS = '/api/v1/checkout/checkouts';
const abandon = (s: Shop, checkoutId: string | null) => s.admin('POST', `${CHECKOUTS}/${checkoutId}/abandon`);
const follow = (link: string) => t.request({ method: 'GET', url: link.slice(t.app.config.publicUrl.length) });
const outboxCount = async (type: string, key: string, value: string) =>
  (await t.app.orm.em.getConnection().execute(`select id from core_outbox where type = ? and data->>? = ?`, [type, key, value])).length;

/** Sends the reminder of the shop's only record and answers the link of the e-mail the SMTP server got. */
async function remind(s: Shop): Promise<string> {
  const [record] = (await listAll(s)).data;
  const before = mailbox.received.length;
  expect((await s.admin('POST', `${LIST}/${record.id}/send-reminder`)).statusCode).toBe(200);
  expect(mailbox.received).toHaveLength(before + 1);
  const mail = mailbox.received[before];
  const link = /(https?:\/\/\S+)/.exec(mail.text ?? '')![1];
  expect(mail.html).toContain(`href="${link}"`);
  return link;
}

describe('POST /admin/abandoned-carts/:id/send-reminder, ten at once', () => {
  it('sends the shopper one e-mail: one 200, nine 409 REMINDER_ALREADY_SENT, counted once', async () => {
    const s = await shop(t, 1500);
    const c = await cartOf(s, 1, 'eva@example.com');
    await abandon(s, c.checkoutId);
    const [record] = (await listAll(s)).data;
    const before = mailbox.received.length;
    const answers = await Promise.all(Array.from({ length: 10 }, () => s.admin('POST', `${LIST}/${record.id}/send-reminder`)));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, ...Array(9).fill(409)]);
    for (const refused of answers.filter((a) => a.statusCode === 409)) expect(refused.json().error.code).toBe('REMINDER_ALREADY_SENT');
    expect(mailbox.received.filter((m) => m.to.includes('eva@example.com'))).toHaveLength(1);
    expect(mailbox.received.length - before).toBe(1);
    const { data, metrics } = await listAll(s);
    expect(data[0]).toMatchObject({ status: 'reminded', reminder_count: 1 });
    expect(metrics.reminder_sent_count).toBe(1);
    expect(await outboxCount('abandoned-carts.cart.reminded', 'id', record.id)).toBe(1);
  });
});

describe('POST /checkouts/:id/abandon', () => {
  it('records the cart in its own transaction: the next request lists it, metrics included', async () => {
    const s = await shop(t, 1500);
    const c = await cartOf(s, 2, 'ana@example.com');
    expect((await abandon(s, c.checkoutId)).json().data.status).toBe('abandoned');
    const { data, metrics } = await listAll(s);
    expect(data).toEqual([expect.objectContaining({ cart_id: c.cartId, checkout_id: c.checkoutId, email: 'ana@example.com', status: 'abandoned', value_cents: 3000, item_count: 2, abandoned_at: clock.now().toISOString() })]);
    expect(metrics).toEqual({ total_abandoned: 1, lost_value_cents: 3000, recovered_count: 0, recovered_value_cents: 0, recovery_rate: 0, reminder_sent_count: 0 });
    expect(await outboxCount('abandoned-carts.cart.abandoned', 'cart_id', c.cartId)).toBe(1);
  });

  it('repeated is harmless: 200 with the same checkout, one record, one event', async () => {
    const s = await shop(t);
    const c = await cartOf(s, 1, 'bea@example.com');
    const first = await abandon(s, c.checkoutId);
    clock.advance(MINUTE);
    const again = await abandon(s, c.checkoutId);
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toEqual(first.json().data);
    expect((await listAll(s)).data).toHaveLength(1);
    expect(await outboxCount('abandoned-carts.cart.abandoned', 'cart_id', c.cartId)).toBe(1);
    expect(await outboxCount('checkout.checkout.abandoned', 'id', c.checkoutId!)).toBe(1);
  });

  it('leaves a cart the sweep recorded before as it was', async () => {
    const s = await shop(t);
    const c = await cartOf(s, 1, 'cai@example.com');
    clock.advance(61 * MINUTE);
    expect((await t.app.container.resolve(AbandonedCarts).sweep(s.tenant.id)).abandoned).toBe(1);
    const before = (await listAll(s)).data;
    expect((await abandon(s, c.checkoutId)).statusCode).toBe(200);
    expect((await listAll(s)).data).toEqual(before);
  });
});

describe('the recovery link', () => {
  it('opens a new open cart in place of the one frozen by the abandoned checkout; again, the same one; the shopper back is a recovery', async () => {
    const s = await shop(t, 2000);
    const c = await cartOf(s, 3, 'dora@example.com');
    await abandon(s, c.checkoutId);
    const link = await remind(s);
    expect(link.startsWith(`${t.app.config.publicUrl}/api/v1/abandoned-carts/restore?token=`)).toBe(true);

    // Opened from the e-mail: no API key, no tenant header.
    const opened = await follow(link);
    expect(opened.statusCode, opened.body).toBe(200);
    const cart = opened.json().data;
    expect(cart).toMatchObject({ tenant_id: s.tenant.id, checkout_id: null, item_count: 3, subtotal: 6000, total: 6000, currency: 'USD' });
    expect(cart.id).not.toBe(c.cartId);
    expect(cart.line_items).toEqual([expect.objectContaining({ variant_id: s.variantId, quantity: 3, unit_price: 2000 })]);
    expect((await follow(link)).json().data.id).toBe(cart.id);
    // Opening the link is not yet a recovery (mail scanners open links too).
    expect((await listAll(s)).data[0]).toMatchObject({ status: 'reminded', restored_cart_id: cart.id });

    // The storefront goes on with it, a minute later: a real cart of the store.
    clock.advance(MINUTE);
    const store = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
      t.request({ method, url, headers: s.tenant.headers(s.tenant.storefrontToken), payload: payload as never });
    expect((await store('PUT', `/api/v1/checkout/carts/${cart.id}/items/${s.variantId}`, { quantity: 4 })).json().data.total).toBe(8000);
    const made = await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'dora@example.com' });
    expect(made.statusCode).toBe(201);
    expect(await t.app.container.resolve(AbandonedCarts).sweep(s.tenant.id)).toEqual({ abandoned: 0, recovered: 1 });
    const { data, metrics } = await listAll(s);
    expect(data).toEqual([expect.objectContaining({ cart_id: c.cartId, status: 'recovered', recovered_by: 'shopper', recovered_value_cents: 8000 })]);
    expect(metrics).toMatchObject({ total_abandoned: 1, recovered_count: 1, recovered_value_cents: 8000, recovery_rate: 100 });
    // The restored cart left idle is not a second abandonment.
    clock.advance(61 * MINUTE);
    expect((await t.app.container.resolve(AbandonedCarts).sweep(s.tenant.id)).abandoned).toBe(0);
  });

  it('opens an idle cart (never checked out) as itself', async () => {
    const s = await shop(t, 700);
    const c = await cartOf(s, 1, undefined);
    clock.advance(61 * MINUTE);
    await t.app.container.resolve(AbandonedCarts).sweep(s.tenant.id);
    const token = t.app.container.resolve(RecoveryLinks).token({ tenantId: s.tenant.id, cartId: c.cartId, expiresAt: new Date(clock.now().getTime() + DAY) });
    const res = await t.request({ method: 'GET', url: `/api/v1/abandoned-carts/restore?token=${encodeURIComponent(token)}` });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ id: c.cartId, total: 700, checkout_id: null });
  });

  it('refuses a forged or altered token (404 RECOVERY_LINK_INVALID), an expired one (410 CART_EXPIRED), a missing one (400)', async () => {
    const s = await shop(t);
    const c = await cartOf(s, 1, 'eva@example.com');
    await abandon(s, c.checkoutId);
    const link = await remind(s);
    const token = new URL(link).searchParams.get('token')!;
    const at = token.length - 5;
    const altered = token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
    for (const bad of ['nonsense', altered]) {
      const res = await t.request({ method: 'GET', url: `/api/v1/abandoned-carts/restore?token=${encodeURIComponent(bad)}` });
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('RECOVERY_LINK_INVALID');
    }
    expect((await t.request({ method: 'GET', url: '/api/v1/abandoned-carts/restore' })).statusCode).toBe(400);
    clock.advance(8 * DAY);
    const expired = await follow(link);
    expect(expired.statusCode).toBe(410);
    expect(expired.json().error.code).toBe('CART_EXPIRED');
  });
});

describe('QHATU_ABANDONED_RECOVERY_URL', () => {
  it("puts the token into the storefront's page where {token} stands; that page hands it to the restore endpoint", async () => {
    const other = await abandonedApp({ clock, env: { SMTP_URL: mailbox.url, QHATU_ABANDONED_RECOVERY_URL: 'https://shop.example/cart/recover/{token}?from=mail' } });
    try {
      const s = await shop(other, 900);
      const c = await cartOf(s, 1, 'fer@example.com');
      await s.admin('POST', `${CHECKOUTS}/${c.checkoutId}/abandon`);
      const [record] = (await listAll(s)).data;
      const before = mailbox.received.length;
      expect((await s.admin('POST', `${LIST}/${record.id}/send-reminder`)).statusCode).toBe(200);
      const mail = mailbox.received[before];
      const match = /https:\/\/shop\.example\/cart\/recover\/(\S+)\?from=mail/.exec(mail.text ?? '');
      expect(match).not.toBeNull();
      const res = await other.request({ method: 'GET', url: `/api/v1/abandoned-carts/restore?token=${match![1]}` });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({ checkout_id: null, total: 900 });
    } finally {
      await other.close();
    }
  });
});
