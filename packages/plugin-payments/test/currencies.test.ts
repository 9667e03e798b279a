import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import payments from '../src/index.js';
import { caller, createOrder, GATEWAYS, ok, PAYMENTS, SESSIONS } from '../src/testing.js';
import { AcmeDouble, acmePlugin } from './fixtures/acme.js';
import { AcmeFormDouble, acmeFormPlugin } from './fixtures/acme-form.js';

/**
 * A gateway is offered only in the currencies it takes (decision 0097): Acme Pay takes PEN and
 * USD, Acme Form only PEN. A store in soles that sells in dollars and euros lists, for a checkout
 * in dollars, Acme Pay alone; a payment or session in a currency the gateway does not take is refused.
 */
let acme: AcmeDouble;
let form: AcmeFormDouble;
let t: TestApp;
let shop: TestTenant;
let single: TestTenant;
let dollars: TestTenant;
beforeAll(async () => {
  acme = await new AcmeDouble('acme_key').start();
  form = await new AcmeFormDouble('form_key').start();
  t = await createTestApp({
    plugins: [media, catalog, customers, inventory, orders, payments, acmePlugin, acmeFormPlugin],
    env: { QHATU_GATEWAY_ACME_BASE_URL: acme.url, QHATU_GATEWAY_ACME_FORM_BASE_URL: form.url },
  });
  shop = await t.createTenant({ currency: 'PEN' });
  single = await t.createTenant({ currency: 'PEN' });
  dollars = await t.createTenant({ currency: 'USD' });
  const admin = caller(t, shop);
  await ok(await admin('PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate: '0.27' }, { code: 'EUR', rate: null }] }), 200);
  await ok(await admin('PUT', '/api/v1/locales', { default_locale: 'es-PE', locales: ['en'] }), 200);
  await ok(await admin('POST', '/api/v1/markets', { handle: 'us', name: 'United States', countries: ['US'], currency: 'USD', default_locale: 'en' }), 201);
  for (const tenant of [shop, single, dollars]) {
    await ok(await caller(t, tenant)('PUT', `${GATEWAYS}/acme`, { credentials: { api_key: 'acme_key', signing_key: 'k' } }), 200);
    await ok(await caller(t, tenant)('PUT', `${GATEWAYS}/acme-form`, { credentials: { api_key: 'form_key' } }), 200);
  }
});
afterAll(async () => {
  await t?.close();
  await acme?.close();
  await form?.close();
});

const listed = async (tenant: TestTenant, query = '', headers: Record<string, string> = {}) => {
  const res = await t.request({ method: 'GET', url: `${GATEWAYS}${query}`, headers: { ...tenant.headers(tenant.storefrontToken), ...headers } });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().data as Array<{ id: string; currencies: string[] }>).map((g) => g.id);
};
const refused = async (tenant: TestTenant, query: string, headers: Record<string, string> = {}) => {
  const res = await t.request({ method: 'GET', url: `${GATEWAYS}${query}`, headers: { ...tenant.headers(tenant.storefrontToken), ...headers } });
  return { status: res.statusCode, error: res.json().error };
};

describe('GET /payments/gateways?currency=', () => {
  it('lists every installed gateway without a filter, and only those that take the currency with one', async () => {
    expect(await listed(shop)).toEqual(['acme', 'acme-form']);
    expect(await listed(shop, '?currency=PEN')).toEqual(['acme', 'acme-form']);
    expect(await listed(shop, '?currency=USD')).toEqual(['acme']);
    // A currency of the store no gateway takes: none to offer.
    expect(await listed(shop, '?currency=EUR')).toEqual([]);
  });

  it('a market (by ?market= or X-Market) filters by its currency', async () => {
    expect(await listed(shop, '?market=us')).toEqual(['acme']);
    expect(await listed(shop, '', { 'x-market': 'us' })).toEqual(['acme']);
    expect(await listed(shop, '?market=us&currency=USD')).toEqual(['acme']);
  });

  it('a currency the store does not sell in is 422 CURRENCY_NOT_LISTED; a bad code 400; an unknown market 422', async () => {
    const unlisted = await refused(shop, '?currency=GBP');
    expect(unlisted).toMatchObject({ status: 422, error: { code: 'CURRENCY_NOT_LISTED', details: [{ path: 'querystring.currency', currency: 'GBP', currencies: ['PEN', 'EUR', 'USD'] }] } });
    expect(await refused(shop, '?market=us&currency=PEN')).toMatchObject({ status: 422, error: { code: 'CURRENCY_NOT_LISTED' } });
    expect(await refused(shop, '?currency=usd')).toMatchObject({ status: 400, error: { code: 'VALIDATION_ERROR' } });
    expect(await refused(shop, '?market=mars')).toMatchObject({ status: 422, error: { code: 'MARKET_NOT_FOUND' } });
  });

  it("each store's own currencies: a store of one currency lists its own, and refuses another", async () => {
    expect(await listed(single, '?currency=PEN')).toEqual(['acme', 'acme-form']);
    expect(await refused(single, '?currency=USD')).toMatchObject({ status: 422, error: { code: 'CURRENCY_NOT_LISTED', details: [{ currencies: ['PEN'] }] } });
    expect(await refused(single, '?market=us')).toMatchObject({ status: 422, error: { code: 'MARKET_NOT_FOUND' } });
    expect(await listed(dollars, '?currency=USD')).toEqual(['acme']);
  });

  it('filtering costs no statement: the store’s currencies ride on the token', async () => {
    await listed(shop, '?currency=USD'); // the key is looked up once, then cached
    const plain = await t.countQueries(() => listed(shop));
    const filtered = await t.countQueries(() => listed(shop, '?currency=USD'));
    expect(filtered.count, filtered.statements.join('\n')).toBe(plain.count);
  });
});

describe('paying in a currency the gateway does not take stays refused', () => {
  it('a session of Acme Form for an order in dollars is refused (400 naming the gateway); Acme Pay takes it', async () => {
    const order = await createOrder(caller(t, dollars));
    expect(order.currency).toBe('USD');
    const api = caller(t, dollars, dollars.storefrontToken);
    const session = await api('POST', SESSIONS, { order_id: order.id, gateway: 'acme-form' });
    expect(session.statusCode, session.body).toBe(400);
    expect(session.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Acme Form does not take USD', details: [{ path: 'body.gateway' }] });
    expect(form.sessions.size).toBe(0);

    const payment = await caller(t, dollars)('POST', PAYMENTS, { order_id: order.id, gateway: 'acme-form', amount: order.total, currency: 'USD', session_key: 'sk_x', form_token: 'ft_x' });
    expect(payment.statusCode, payment.body).toBe(400);
    expect(payment.json().error.details).toEqual(expect.arrayContaining([{ path: 'body.currency', message: 'Acme Form does not take USD' }]));

    const paid = await caller(t, dollars)('POST', PAYMENTS, { order_id: order.id, gateway: 'acme', amount: order.total, currency: 'USD', acme_token: 'tok_ok', installments: 1 });
    expect(paid.statusCode, paid.body).toBe(201);
    expect(paid.json().data).toMatchObject({ gateway: 'acme', currency: 'USD', status: 'paid' });
  });
});
