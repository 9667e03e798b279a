import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { Database } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import payments from '../src/index.js';
import { AcmeDouble, acmeGateway, acmePlugin } from './fixtures/acme.js';

const BASE = [media, catalog, customers, inventory, orders, payments];
const PAYMENTS = '/api/v1/payments';
const GATEWAYS = '/api/v1/payments/gateways';

type Method = 'GET' | 'POST' | 'PUT';
const caller = (t: TestApp, tenant: TestTenant, token?: string) => (method: Method, url: string, payload?: unknown) =>
  t.request({ method, url, headers: tenant.headers(token), payload: payload as InjectOptions['payload'] });

async function createOrder(api: ReturnType<typeof caller>) {
  const product = await api('POST', '/api/v1/catalog/products', { title: 'Chullo', variants: [{ title: 'Red', sku: `SKU-${randomUUID().slice(0, 8)}`, price: 3000 }] });
  const res = await api('POST', '/api/v1/orders', {
    customer_email: 'rosa@example.com', line_items: [{ variant_id: product.json().data.variants[0].id, quantity: 1 }],
    shipping_address: { first_name: 'Rosa', last_name: 'Quispe', address1: 'Av. Sol 123', city: 'Cusco', country_code: 'PE', zip: '08002' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; total: number; currency: string };
}

describe('without any gateway package', () => {
  let t: TestApp;
  let shop: TestTenant;
  beforeAll(async () => {
    t = await createTestApp({ plugins: BASE });
    shop = await t.createTenant({ currency: 'PEN' });
  });
  afterAll(async () => t?.close());

  it('lists no gateway and refuses payments with a precise error', async () => {
    const api = caller(t, shop);
    expect((await api('GET', GATEWAYS)).json()).toEqual({ data: [] });
    const order = await createOrder(api);
    const res = await api('POST', PAYMENTS, { order_id: order.id, gateway: 'stripe', amount: order.total, currency: 'PEN' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toEqual([{ path: 'body.gateway', message: 'no gateway is installed' }]);
    expect((await api('GET', `${GATEWAYS}/stripe`)).statusCode).toBe(404);
  });

  it('refuses a gateway registered twice at start', async () => {
    const twice = { ...acmePlugin, name: 'gateway-acme-again' };
    await expect(createTestApp({ plugins: [...BASE, acmePlugin, twice] })).rejects.toThrow(/registered twice/);
  });
});

describe('a gateway from another package (the plugin API)', () => {
  let double: AcmeDouble;
  let t: TestApp;
  let shop: TestTenant;
  let other: TestTenant;
  const signingKey = 'acme-signing-key-123';
  beforeAll(async () => {
    double = await new AcmeDouble('acme_live_key').start();
    t = await createTestApp({ plugins: [...BASE, acmePlugin], env: { QHATU_GATEWAY_ACME_BASE_URL: double.url } });
    shop = await t.createTenant({ currency: 'PEN' });
    other = await t.createTenant({ currency: 'PEN' });
    const res = await caller(t, shop)('PUT', `${GATEWAYS}/acme`, { credentials: { api_key: 'acme_live_key', signing_key: signingKey } });
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await double?.close();
  });

  it('is listed with its fields, and configured per store', async () => {
    const [listed] = (await caller(t, shop, shop.storefrontToken)('GET', GATEWAYS)).json().data;
    expect(listed).toEqual({
      id: 'acme', name: 'Acme Pay', currencies: ['PEN', 'USD'], configured: true, enabled: true, public_credentials: {}, notification_url: expect.stringMatching(new RegExp(`^https?://[^/]+/webhooks/acme\\?tenant=${shop.id}$`)),
      session: null, payment_fields: acmeGateway.paymentFields, credential_fields: acmeGateway.credentialFields.map(({ name, required, secret, description }) => ({ name, required, secret, description })),
    });
    expect((await caller(t, other)('GET', GATEWAYS)).json().data[0]).toMatchObject({ configured: false, enabled: false });
  });

  it('validates its integer field and its currencies, each named', async () => {
    const api = caller(t, shop);
    const order = await createOrder(api);
    const res = await api('POST', PAYMENTS, { order_id: order.id, gateway: 'acme', amount: order.total, currency: 'EUR', acme_token: 'tok_ok', installments: 'three' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.map((d: { path: string }) => d.path)).toEqual(['body.currency', 'body.installments']);
    const none = await api('POST', PAYMENTS, { order_id: order.id, gateway: 'acme', amount: order.total, currency: 'PEN', installments: 0 });
    expect(none.json().error.details).toEqual([
      expect.objectContaining({ path: 'body.acme_token', message: 'is required by Acme Pay' }),
      expect.objectContaining({ path: 'body.installments' }),
    ]);
  });

  it("refuses a payment that does not match the order, or an order with nothing left to pay", async () => {
    const api = caller(t, shop);
    const order = await createOrder(api);
    const charges = double.requests.length;
    const usd = await api('POST', PAYMENTS, { order_id: order.id, gateway: 'acme', amount: order.total, currency: 'USD', acme_token: 'tok_ok', installments: 1 });
    expect(usd.statusCode).toBe(422);
    expect(usd.json().error).toMatchObject({ code: 'PAYMENT_CURRENCY_MISMATCH', details: [{ path: 'body.currency', message: "must be the order's currency, PEN", order_currency: 'PEN' }] });
    const more = await api('POST', PAYMENTS, { order_id: order.id, gateway: 'acme', amount: order.total + 1, currency: 'PEN', acme_token: 'tok_ok', installments: 1 });
    expect(more.statusCode).toBe(422);
    expect(more.json().error).toMatchObject({ code: 'PAYMENT_EXCEEDS_BALANCE', details: [{ path: 'body.amount', amount_due: order.total, order_total: order.total }] });
    expect((await api('POST', `/api/v1/orders/${order.id}/cancel`, {})).statusCode).toBe(200);
    const cancelled = await api('POST', PAYMENTS, { order_id: order.id, gateway: 'acme', amount: order.total, currency: 'PEN', acme_token: 'tok_ok', installments: 1 });
    expect(cancelled.statusCode).toBe(409);
    expect(cancelled.json().error.code).toBe('ORDER_NOT_PAYABLE');
    // Nothing reached the provider.
    expect(double.requests.length).toBe(charges);
  });

  it("never lets one provider payment pay two payments, even at once", async () => {
    const api = caller(t, shop);
    const [a, b, c] = [await createOrder(api), await createOrder(api), await createOrder(api)];
    const pay = (order: { id: string; total: number }) =>
      api('POST', PAYMENTS, { order_id: order.id, gateway: 'acme', amount: order.total, currency: 'PEN', acme_token: 'tok_same_xyz', installments: 1 });
    const first = await pay(a);
    expect(first.json().data).toMatchObject({ status: 'paid', provider_payment_id: 'ch_xyz' });
    const [second, third] = await Promise.all([pay(b), pay(c)]);
    for (const res of [second, third]) {
      expect(res.statusCode).toBe(201);
      expect(res.json().data).toMatchObject({ status: 'failed', provider_payment_id: null, failure_reason: "Acme Pay's payment ch_xyz already pays another payment of this store" });
    }
  });

  it('charges at the operator’s base URL with the store’s key, then refunds there', async () => {
    const api = caller(t, shop);
    const order = await createOrder(api);
    const res = await api('POST', PAYMENTS, { order_id: order.id, gateway: 'acme', amount: order.total, currency: 'PEN', acme_token: 'tok_ok', installments: 3 });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'paid', method: 'acme', amount: 3000 });
    expect(double.requests.at(-1)).toMatchObject({ method: 'POST', url: '/charges', authorization: 'Bearer acme_live_key', body: { amount: 3000, currency: 'PEN', token: 'tok_ok', installments: 3 } });
    const refund = await api('POST', `${PAYMENTS}/${res.json().data.id}/refund`, { amount: 1000, reason: 'duplicate' });
    expect(refund.statusCode).toBe(201);
    expect(refund.json().data).toMatchObject({ status: 'refunded', amount: 1000, reason: 'duplicate' });
    expect(double.requests.at(-1)).toMatchObject({ url: '/refunds', body: { charge: res.json().data.provider_payment_id, amount: 1000 } });
  });

  it('pays in two short transactions, and reads a settled payment in one (SQL statements per request)', async () => {
    const api = caller(t, shop);
    const order = await createOrder(api);
    await api('GET', `${PAYMENTS}/gateways`); // the caller's key is looked up once, then cached
    const paid = await t.countQueries(() => api('POST', PAYMENTS, { order_id: order.id, gateway: 'acme', amount: order.total, currency: 'PEN', acme_token: 'tok_ok', installments: 1 }));
    expect(paid.result.json().data.status).toBe('paid');
    // BEGIN with the tenant context, settings, order (locked), its other payments (the balance),
    // insert, COMMIT; BEGIN with the tenant context, lock, outbox, update, COMMIT.
    expect(paid.count, paid.statements.join('\n')).toBeLessThanOrEqual(11);
    const read = await t.countQueries(() => api('GET', `${PAYMENTS}/${paid.result.json().data.id}`));
    expect(read.result.json().data.status).toBe('paid');
    // BEGIN with the tenant context, payment, refunds, COMMIT: a settled payment asks the provider nothing.
    expect(read.count, read.statements.join('\n')).toBeLessThanOrEqual(4);
  });

  it('indexes provider payments per store for the bare notification path; a store sees and writes only its own entries', async () => {
    const third = await t.createTenant({ currency: 'PEN' });
    await caller(t, third)('PUT', `${GATEWAYS}/acme`, { credentials: { api_key: 'acme_live_key', signing_key: 'third-key' } });
    const order = await createOrder(caller(t, shop));
    const paid = (await caller(t, shop)('POST', PAYMENTS, { order_id: order.id, gateway: 'acme', amount: order.total, currency: 'PEN', acme_token: 'tok_ok', installments: 1 })).json().data;
    const theirOrder = await createOrder(caller(t, third));
    const theirs = (await caller(t, third)('POST', PAYMENTS, { order_id: theirOrder.id, gateway: 'acme', amount: theirOrder.total, currency: 'PEN', acme_token: 'tok_ok', installments: 1 })).json().data;
    const all = await t.app.orm.em.getConnection().execute(`select tenant_id, kind from payments_provider_ref where reference in (?, ?) order by tenant_id`, [paid.provider_payment_id, theirs.provider_payment_id]);
    expect(all).toEqual(expect.arrayContaining([{ tenant_id: shop.id, kind: 'payment' }, { tenant_id: third.id, kind: 'payment' }]));
    const db = t.app.container.resolve(Database);
    // Under the stores' role (row-level security), the other store's entry is not there, and cannot be written.
    const seen = await db.tenant(({ em }) => em.execute<Array<{ tenant_id: string }>>(`select tenant_id from payments_provider_ref`), shop.id);
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen.map((r) => r.tenant_id))).toEqual(new Set([shop.id]));
    await expect(db.tenant(({ em }) => em.execute(`insert into payments_provider_ref (gateway, kind, reference, tenant_id) values ('acme', 'payment', 'ch_planted', ?)`, [third.id]), shop.id)).rejects.toThrow(/row-level security/);
  });

  it('takes its signed notifications at /webhooks/acme/<store>; the raw body reaches the gateway', async () => {
    const api = caller(t, shop);
    const order = await createOrder(api);
    const payment = (await api('POST', PAYMENTS, { order_id: order.id, gateway: 'acme', amount: order.total, currency: 'PEN', acme_token: 'tok_review', installments: 1 })).json().data;
    expect(payment.status).toBe('processing');
    double.charges.get(payment.provider_payment_id)!.status = 'paid';
    // Spacing kept on purpose: a re-serialized body would not match the signature.
    const body = `{ "event_id": "ev_1",  "charge_id": "${payment.provider_payment_id}" }`;
    const post = (headers: Record<string, string>, tenant = shop.id) =>
      t.request({ method: 'POST', url: `/webhooks/acme/${tenant}`, headers: { 'content-type': 'application/json', ...headers }, payload: body });
    expect((await post({})).statusCode).toBe(401);
    expect((await post({ 'x-acme-signature': double.sign(body, 'wrong') })).statusCode).toBe(401);
    expect((await post({ 'x-acme-signature': double.sign(body, signingKey) }, other.id)).statusCode).toBe(401);
    const ok = await post({ 'x-acme-signature': double.sign(body, signingKey) });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data.outcome).toBe('processed');
    expect((await post({ 'x-acme-signature': double.sign(body, signingKey) })).json().data.outcome).toBe('duplicate');
    const [row] = await t.app.orm.em.getConnection().execute(`select status from payments_payment where id = ?`, [payment.id]);
    expect(row.status).toBe('paid');
  });

  it('documents its routes in /openapi.json, the notification route included', async () => {
    const res = await t.request({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const paths = Object.keys(res.json().paths);
    expect(paths).toEqual(expect.arrayContaining(['/api/v1/payments', '/api/v1/payments/{id}', '/api/v1/payments/{id}/refund', '/api/v1/payments/gateways', '/api/v1/payments/gateways/{id}', '/webhooks/{gateway}/{tenant_id}']));
  });

  it('a declined charge is recorded failed with the reason; JSON routes outside /webhooks still parse JSON', async () => {
    const api = caller(t, shop);
    const order = await createOrder(api);
    const res = await api('POST', PAYMENTS, { order_id: order.id, gateway: 'acme', amount: order.total, currency: 'PEN', acme_token: 'tok_no', installments: 1 });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'failed', failure_reason: 'insufficient funds' });
  });

  it('counts payments by gateway and status in /metrics, each status once it commits', async () => {
    const counts = async () => {
      const text = (await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${t.platformToken}` } })).body;
      const of = (status: string) => Number(text.match(new RegExp(`^qhatu_payments_total\\{gateway="acme",status="${status}"\\} (\\d+)$`, 'm'))?.[1] ?? 0);
      return { pending: of('pending'), processing: of('processing'), paid: of('paid'), failed: of('failed'), refunded: of('refunded') };
    };
    const api = caller(t, shop);
    const before = await counts();
    const paid = await api('POST', PAYMENTS, { order_id: (await createOrder(api)).id, gateway: 'acme', amount: 3000, currency: 'PEN', acme_token: 'tok_ok', installments: 1 });
    expect(paid.json().data.status).toBe('paid');
    expect((await api('POST', PAYMENTS, { order_id: (await createOrder(api)).id, gateway: 'acme', amount: 3000, currency: 'PEN', acme_token: 'tok_no', installments: 1 })).json().data.status).toBe('failed');
    expect((await api('POST', `${PAYMENTS}/${paid.json().data.id}/refund`, { amount: 3000, reason: 'duplicate' })).statusCode).toBe(201);
    // Refused before anything is written (more than the order's total): nothing is counted.
    expect((await api('POST', PAYMENTS, { order_id: (await createOrder(api)).id, gateway: 'acme', amount: 9000, currency: 'PEN', acme_token: 'tok_ok', installments: 1 })).statusCode).toBe(422);
    const after = await counts();
    expect({
      pending: after.pending - before.pending, processing: after.processing - before.processing, paid: after.paid - before.paid,
      failed: after.failed - before.failed, refunded: after.refunded - before.refunded,
    }).toEqual({ pending: 2, processing: 1, paid: 1, failed: 1, refunded: 1 });
    expect(after.pending).toBeGreaterThanOrEqual(2);
  });

  it("lists the store's payments for its admin, with refunds, filtered and paged", async () => {
    const api = caller(t, shop);
    const order = await createOrder(api);
    const pay = (token: string) => api('POST', PAYMENTS, { order_id: order.id, gateway: 'acme', amount: order.total, currency: 'PEN', acme_token: token, installments: 1 });
    const failed = (await pay('tok_no')).json().data;
    const paid = (await pay('tok_ok')).json().data;
    await api('POST', `${PAYMENTS}/${paid.id}/refund`, { amount: 500, reason: 'other' });

    const ofOrder = await api('GET', `${PAYMENTS}?filter[order_id]=${order.id}`);
    expect(ofOrder.statusCode).toBe(200);
    expect(ofOrder.json().data.map((p: { id: string }) => p.id)).toEqual([paid.id, failed.id]);
    expect(ofOrder.json().data[0]).toMatchObject({ status: 'partially_refunded', refunded_amount: 500, refundable_amount: order.total - 500, refunds: [{ amount: 500, status: 'refunded' }] });
    expect(ofOrder.json().data[1]).toMatchObject({ status: 'failed', refundable_amount: 0, refunds: [] });
    const onlyFailed = (await api('GET', `${PAYMENTS}?filter[order_id]=${order.id}&filter[status]=failed`)).json().data;
    expect(onlyFailed.map((p: { id: string }) => p.id)).toEqual([failed.id]);
    // Found from the provider's dashboard by the provider's id.
    const byProvider = (await api('GET', `${PAYMENTS}?filter[provider_payment_id]=${encodeURIComponent(paid.provider_payment_id)}`)).json().data;
    expect(byProvider.map((p: { id: string }) => p.id)).toEqual([paid.id]);
    expect((await caller(t, other)('GET', `${PAYMENTS}?filter[provider_payment_id]=${encodeURIComponent(paid.provider_payment_id)}`)).json().data).toEqual([]);

    const first = (await api('GET', `${PAYMENTS}?filter[order_id]=${order.id}&limit=1`)).json();
    expect(first.data.map((p: { id: string }) => p.id)).toEqual([paid.id]);
    expect(first.meta.pagination.has_next).toBe(true);
    const second = (await api('GET', `${PAYMENTS}?filter[order_id]=${order.id}&limit=1&cursor=${encodeURIComponent(first.meta.pagination.cursor)}`)).json();
    expect(second.data.map((p: { id: string }) => p.id)).toEqual([failed.id]);

    // Another store sees none of them; a storefront key may not list; a bad filter is named.
    expect((await caller(t, other)('GET', `${PAYMENTS}?filter[order_id]=${order.id}`)).json().data).toEqual([]);
    expect((await caller(t, shop, shop.storefrontToken)('GET', PAYMENTS)).statusCode).toBe(403);
    const bad = await api('GET', `${PAYMENTS}?filter[status]=lost`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details[0].path).toContain('filter[status]');
  });
});
