import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { StripeDouble } from '@qhatu/plugin-gateway-stripe/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The store as `pnpm start` runs it on a fresh machine: the CLI, the full-store project and the
 * embedded database (PGlite) in a new data folder. A store owner's first steps, over real HTTP.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let server: ChildProcess;
let base: string;
let dataDir: string;
let output = '';
/** Stripe, as the store's payment provider: a double on 127.0.0.1 the operator points the store at. */
const stripeKey = 'sk_test_scenario';
let stripe: StripeDouble;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function untilReady(url: string, ms: number): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (server.exitCode !== null) throw new Error(`the store exited early:\n${output}`);
    if (Date.now() > end) throw new Error(`the store was not ready in time:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'qhatu-scenario-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  stripe = await new StripeDouble(new Set([stripeKey])).start();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), QHATU_DATA_DIR: dataDir, LOG_LEVEL: 'warn', QHATU_GATEWAY_STRIPE_BASE_URL: stripe.url };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'QHATU_PLATFORM_TOKEN', 'QHATU_ENV']) delete env[name];
  server = spawn(process.execPath, ['packages/cli/bin/qhatu.js', 'start', '--config', 'starters/full-store/qhatu.config.ts'], { cwd: root, env });
  server.stdout!.on('data', (d) => (output += d));
  server.stderr!.on('data', (d) => (output += d));
  await untilReady(`${base}/health/ready`, 90_000);
}, 120_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
  await stripe?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Polls `read` until it gives `expected` (the in-process workers move orders along). */
async function until<T>(read: () => Promise<T>, expected: T, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  let last: T = await read();
  while (last !== expected && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    last = await read();
  }
  expect(last).toBe(expected);
}

async function call(method: string, url: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

describe('a store on the embedded database', () => {
  it('answers health, serves the API reference, and bootstraps a store: tenant, API key, product', async () => {
    expect((await call('GET', '/health/ready', {})).body).toEqual({ status: 'ok', checks: { database: 'ok', queue: 'ok' } });
    const openapi = (await call('GET', '/openapi.json', {})).body;
    for (const p of ['/api/v1/tenants', '/api/v1/tenants/{id}/api-keys', '/api/v1/catalog/products', '/api/v1/catalog/products/{id}/variants/{variant_id}', '/graphql']) {
      expect(openapi.paths, p).toHaveProperty([p]);
    }

    const platformToken = (await readFile(path.join(dataDir, 'platform-token'), 'utf8')).trim();
    expect(output).toContain(platformToken); // printed at start for the operator
    const platform = { authorization: `Bearer ${platformToken}` };

    const tenant = await call('POST', '/api/v1/tenants', platform, { name: 'Andean Crafts', currency: 'PEN' });
    expect(tenant.status).toBe(201);
    const tenantId = tenant.body.data.id;
    const key = await call('POST', `/api/v1/tenants/${tenantId}/api-keys`, platform, { name: 'Back office', scope: 'admin' });
    expect(key.status).toBe(201);
    const storefrontKey = (await call('POST', `/api/v1/tenants/${tenantId}/api-keys`, platform, { name: 'Web', scope: 'storefront' })).body.data.token;
    const admin = { authorization: `Bearer ${key.body.data.token}`, 'x-tenant-id': tenantId };

    const product = await call('POST', '/api/v1/catalog/products', admin, {
      title: 'Alpaca scarf',
      variants: [{ title: 'Grey', sku: 'SCARF-GREY', price: 8900 }, { title: 'Red', price: 9900 }],
    });
    expect(product.status).toBe(201);
    expect(product.body.data).toMatchObject({ handle: 'alpaca-scarf', variants: [{ currency: 'PEN', price: 8900 }, { price: 9900 }] });

    // Stock is received into the store's first warehouse; the catalog shows the sum.
    const warehouse = await call('POST', '/api/v1/inventory/warehouses', admin, { name: 'Cusco', code: 'CUS' });
    expect(warehouse.status).toBe(201);
    const received12 = await call('POST', `/api/v1/inventory/warehouses/${warehouse.body.data.id}/stock/adjust`, admin, { variant_id: product.body.data.variants[0].id, delta: 12, reason: 'received' });
    expect(received12.status).toBe(200);

    const draft = await call('POST', '/api/v1/catalog/products', admin, { title: 'Secret', status: 'draft', variants: [{ title: 'x', price: 1 }] });
    expect(draft.status).toBe(201);

    const shopper = { authorization: `Bearer ${storefrontKey}`, 'x-tenant-id': tenantId };
    const listed = await call('GET', '/api/v1/catalog/products', shopper);
    expect(listed.body.data.map((p: { title: string }) => p.title)).toEqual(['Alpaca scarf']);

    const gql = await call('POST', '/graphql', shopper, { query: '{ products(limit: 5) { edges { node { title variants { price } } } pageInfo { hasNextPage } } }' });
    expect(gql.body).toEqual({ data: { products: { edges: [{ node: { title: 'Alpaca scarf', variants: [{ price: 8900 }, { price: 9900 }] } }], pageInfo: { hasNextPage: false } } } });

    // A receiver subscribed to product updates gets a signed CloudEvent when the price changes.
    const received: Array<{ headers: Record<string, string | string[] | undefined>; body: string }> = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c)).on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const secret = 'scenario-receiver-secret';
      const hook = await call('POST', '/api/v1/webhooks', admin, {
        url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`,
        events: ['products.product.updated'],
        secret,
      });
      expect(hook.status).toBe(201);
      const productId = product.body.data.id;
      await call('PATCH', `/api/v1/catalog/products/${productId}/variants/${product.body.data.variants[0].id}`, admin, { price: 7900 });
      const end = Date.now() + 20_000;
      while (received.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
      // The first event after the subscription: the stock received before it is not sent.
      expect(received).toHaveLength(1);
      const [message] = received;
      const event = JSON.parse(message.body);
      expect(event).toMatchObject({ specversion: '1.0', type: 'products.product.updated', source: '/qhatu/products', tenantid: tenantId });
      expect(event.data).toMatchObject({ id: productId, sku: 'SCARF-GREY', name: 'Alpaca scarf', price: 7900, stock: 12 });
      const signed = `${message.headers['webhook-id']}.${message.headers['webhook-timestamp']}.${message.body}`;
      expect(message.headers['webhook-signature']).toBe(`v1,${createHmac('sha256', secret).update(signed).digest('base64')}`);
    } finally {
      receiver.close();
    }

    const suspended = await call('POST', `/api/v1/tenants/${tenantId}/suspend`, platform);
    expect(suspended.body.data.status).toBe('suspended');
    expect((await call('GET', '/api/v1/catalog/products', shopper)).body.error.code).toBe('TENANT_SUSPENDED');
  });

  it('sells: cart → checkout → order → Stripe payment → paid, then a refund, with the workers in-process', async () => {
    const platform = { authorization: `Bearer ${(await readFile(path.join(dataDir, 'platform-token'), 'utf8')).trim()}` };
    const tenantId = (await call('POST', '/api/v1/tenants', platform, { name: 'Cusco Knits', currency: 'PEN' })).body.data.id;
    const keyOf = async (scope: string) => (await call('POST', `/api/v1/tenants/${tenantId}/api-keys`, platform, { name: scope, scope })).body.data.token;
    const admin = { authorization: `Bearer ${await keyOf('admin')}`, 'x-tenant-id': tenantId };
    const shopper = { authorization: `Bearer ${await keyOf('storefront')}`, 'x-tenant-id': tenantId };

    const configured = await call('PUT', '/api/v1/payments/gateways/stripe', admin, { enabled: true, credentials: { secret_key: stripeKey, webhook_secret: 'whsec_scenario' } });
    expect(configured.status).toBe(200);
    const warehouse = (await call('POST', '/api/v1/inventory/warehouses', admin, { name: 'Cusco', code: 'CUS' })).body.data.id;
    const variant = (await call('POST', '/api/v1/catalog/products', admin, { title: 'Llama beanie', variants: [{ title: 'One size', price: 4000 }] })).body.data.variants[0].id;
    expect((await call('POST', `/api/v1/inventory/warehouses/${warehouse}/stock/adjust`, admin, { variant_id: variant, delta: 5, reason: 'received' })).status).toBe(200);

    const cart = (await call('POST', '/api/v1/checkout/carts', shopper, {})).body.data;
    expect((await call('POST', `/api/v1/checkout/carts/${cart.id}/items`, shopper, { variant_id: variant, quantity: 2 })).status).toBe(201);
    const started = (await call('POST', '/api/v1/checkout/checkouts', shopper, { cart_id: cart.id, email: 'rosa@example.com' })).body.data;
    const address = { first_name: 'Rosa', last_name: 'Quispe', address1: 'Av. Sol 123', city: 'Cusco', province: 'Cusco', country_code: 'PE', zip: '08000', phone: '+51987654321' };
    const checkout = (await call('PUT', `/api/v1/checkout/checkouts/${started.id}/shipping`, shopper, {
      shipping_address: address, billing_address: address, shipping_rate: { carrier: 'Olva', service: 'Express', price: 1500 },
    })).body.data;
    expect(checkout).toMatchObject({ status: 'payment_pending', total: 9500, order_id: expect.any(String) });

    const payment = await call('POST', '/api/v1/payments', shopper, { order_id: checkout.order_id, gateway: 'stripe', amount: 9500, currency: 'PEN', payment_method_id: 'pm_card_visa' });
    const paidAt = Date.now();
    expect(payment.status).toBe(201);
    expect(payment.body.data).toMatchObject({ status: 'paid', provider_payment_id: expect.stringMatching(/^pi_/) });
    // The in-process workers are woken by the commits (not the embedded database's 5 s look for new
    // jobs): the order and its checkout, two jobs apart, are done well within one such wait of the
    // payment, however busy the machine (a second on an idle one).
    let completedAfter = Infinity;
    while (Date.now() - paidAt < 10_000) {
      if ((await call('GET', `/api/v1/checkout/checkouts/${checkout.id}`, shopper)).body.data.status === 'completed') {
        completedAfter = Date.now() - paidAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(completedAfter).toBeLessThan(2_500);
    expect((await call('GET', `/api/v1/orders/${checkout.order_id}`, admin)).body.data.status).toBe('paid');

    const refund = await call('POST', `/api/v1/payments/${payment.body.data.id}/refund`, admin, { amount: 0, reason: 'requested_by_customer' });
    expect(refund.body.data).toMatchObject({ status: 'refunded', amount: 9500 });
    await until(async () => (await call('GET', `/api/v1/orders/${checkout.order_id}`, admin)).body.data.status, 'refunded');
    expect([...stripe.refunds.values()].map((r) => r.amount)).toEqual([9500]);
  });

  it('offers a free and a paid theme from the start: a store installs, edits and publishes one', async () => {
    const platform = { authorization: `Bearer ${(await readFile(path.join(dataDir, 'platform-token'), 'utf8')).trim()}` };
    const tenantId = (await call('POST', '/api/v1/tenants', platform, { name: 'Theme shop' })).body.data.id;
    const token = (await call('POST', `/api/v1/tenants/${tenantId}/api-keys`, platform, { name: 'Back office', scope: 'admin' })).body.data.token;
    const admin = { authorization: `Bearer ${token}`, 'x-tenant-id': tenantId };
    const themes = (await call('GET', '/api/v1/theme-store', admin)).body.data;
    expect(themes.map((t: { name: string; is_free: boolean }) => [t.name, t.is_free])).toEqual([['andes', true], ['inti', false]]);

    expect((await call('POST', `/api/v1/theme-store/${themes[0].id}/install`, admin)).status).toBe(201);
    expect((await call('POST', `/api/v1/theme-store/${themes[0].id}/activate`, admin)).body.data.status).toBe('activated');
    const draft = (await call('GET', '/admin/themes/draft', admin)).body;
    const edited = { ...draft, section_order: draft.section_order.filter((id: string) => id !== 'featured') };
    expect((await call('PUT', '/admin/themes/draft', admin, edited)).status).toBe(200);
    expect((await call('POST', '/admin/themes/publish', admin)).body).toMatchObject({ ok: true, label: 'Publicado' });
    const storefrontKey = (await call('POST', `/api/v1/tenants/${tenantId}/api-keys`, platform, { name: 'Web', scope: 'storefront' })).body.data.token;
    const live = await call('GET', '/api/v1/theme', { authorization: `Bearer ${storefrontKey}`, 'x-tenant-id': tenantId });
    expect(live.body.data.settings.section_order).toEqual(['header', 'hero', 'footer']);
    expect((await call('POST', `/api/v1/theme-store/${themes[1].id}/install`, admin)).body.error.code).toBe('THEME_NOT_PURCHASED');
  });

  it('keeps a sales pipeline: a lead found without its accents, qualified, converted into a contact, an account and a won deal', async () => {
    const platform = { authorization: `Bearer ${(await readFile(path.join(dataDir, 'platform-token'), 'utf8')).trim()}` };
    const tenantId = (await call('POST', '/api/v1/tenants', platform, { name: 'Puno Wool', currency: 'PEN' })).body.data.id;
    const token = (await call('POST', `/api/v1/tenants/${tenantId}/api-keys`, platform, { name: 'admin', scope: 'admin' })).body.data.token;
    const admin = { authorization: `Bearer ${token}`, 'x-tenant-id': tenantId };
    const lead = (await call('POST', '/api/v1/crm/leads', admin, { first_name: 'Julián', last_name: 'Mamaní', company: 'Tejidos Ñuñoa', job_title: 'Gerente general', source: 'web_form' })).body.data;
    expect(lead).toMatchObject({ status: 'new', score: expect.any(Number) });
    // Searched through the trigram index, on the embedded database too.
    for (const words of ['mamani', 'NUNOA', 'ju']) {
      expect((await call('GET', `/api/v1/crm/leads?search=${words}`, admin)).body.data.map((l: { id: string }) => l.id), words).toEqual([lead.id]);
    }
    expect((await call('POST', `/api/v1/crm/leads/${lead.id}/activities`, admin, { type: 'meeting', subject: 'Showroom visit' })).status).toBe(201);
    expect((await call('POST', `/api/v1/crm/leads/${lead.id}/qualify`, admin)).body.data.status).toMatch(/^(mql|sql)$/);
    const converted = await call('POST', `/api/v1/crm/leads/${lead.id}/convert`, admin, { create_account: true, create_deal: true, deal_amount: 480_000 });
    expect(converted.status).toBe(200);
    const { contact, account, deal } = converted.body.data;
    expect(account.name).toBe('Tejidos Ñuñoa');
    expect(deal).toMatchObject({ contact_id: contact.id, account_id: account.id, currency: 'PEN', amount: 480_000, status: 'open' });
    expect((await call('GET', `/api/v1/crm/contacts/${contact.id}/activities`, admin)).body.data).toHaveLength(1);
    expect((await call('POST', `/api/v1/crm/deals/${deal.id}/won`, admin)).body.data).toMatchObject({ status: 'won', probability: 100 });
  });
});
