import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { Secrets, type QhatuPlugin } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import orders from '@qhatu/plugin-orders';
import type { ProviderDouble } from './http-double.js';
import payments from './index.js';
import { stopStoreProcesses } from './store-process.js';

export { HttpDouble, type ProviderDouble, type RecordedRequest } from './http-double.js';
export { spawnStoreProcess, startStoreProcess, stopStoreProcesses, type SpawnedStoreProcess, type StoreProcess } from './store-process.js';

/**
 * vitest's `expect`, for the helpers that check answers: loaded when one of them first runs, so
 * that a test of another runner can use the rest of the kit (the app, the doubles, the callers).
 */
async function vitestExpect() {
  return (await import('vitest')).expect;
}

/** The plugins below orders in the store every helper builds; loaded when first asked for. */
async function basePlugins(): Promise<QhatuPlugin[]> {
  const [media, catalog, customers, inventory] = await Promise.all([
    import('@qhatu/plugin-media'),
    import('@qhatu/plugin-catalog'),
    import('@qhatu/plugin-customers'),
    import('@qhatu/plugin-inventory'),
  ]);
  return [media.default, catalog.default, customers.default, inventory.default];
}

/** What every gateway package's tests share: the app around a gateway, callers, an order to pay. */

export const PAYMENTS = '/api/v1/payments';
export const GATEWAYS = '/api/v1/payments/gateways';
export const SESSIONS = '/api/v1/payments/sessions';
export const MISSING = '00000000-0000-4000-8000-000000000001';

/**
 * The app with `gateway` pointed at its provider double through `baseUrlVariable` (operator
 * configuration). A charge whose answer was lost is asked again at the next read (no quiet time:
 * in these tests no first call is still under way), unless `env` says otherwise.
 */
export async function gatewayApp(
  gateway: QhatuPlugin,
  baseUrlVariable: string,
  baseUrl: string,
  options: { workers?: boolean; plugins?: QhatuPlugin[]; env?: Record<string, string> } = {},
): Promise<TestApp> {
  return createTestApp({
    plugins: options.plugins ?? [...(await basePlugins()), orders, payments, gateway],
    workers: options.workers,
    env: { QHATU_PAYMENTS_ASK_AGAIN_AFTER_SECONDS: '0', [baseUrlVariable]: baseUrl, ...options.env },
  });
}

/**
 * The app on `double` (with `workers` and `env` when told) with two stores in `currency` (PEN unless
 * told), neither configured; `close()` stops the store processes started on it, the app and the double.
 */
export async function gatewayStores<D extends ProviderDouble>(
  gateway: QhatuPlugin,
  baseUrlVariable: string,
  double: D,
  options: { currency?: string; workers?: boolean; env?: Record<string, string> } = {},
) {
  const t = await gatewayApp(gateway, baseUrlVariable, double.url, { workers: options.workers, env: options.env }).catch(async (error: unknown) => {
    await double.close();
    throw error;
  });
  const close = async () => {
    await stopStoreProcesses();
    await t.close();
    await double.close();
  };
  try {
    const shop = await t.createTenant({ currency: options.currency ?? 'PEN' });
    const other = await t.createTenant({ currency: options.currency ?? 'PEN' });
    return { double, t, shop, other, admin: caller(t, shop), store: caller(t, shop, shop.storefrontToken), close };
  } catch (error) {
    await close();
    throw error;
  }
}
export type GatewayStores<D extends ProviderDouble> = Awaited<ReturnType<typeof gatewayStores<D>>>;

/** Runs `work` as the admin of a store (in `currency`, PEN unless told) configured by `configure` on an app whose provider cannot be reached. */
export async function withUnreachableGateway<T>(
  gateway: QhatuPlugin,
  baseUrlVariable: string,
  configure: (admin: Caller) => Promise<void>,
  work: (admin: Caller) => Promise<T>,
  options: { currency?: string } = {},
): Promise<T> {
  const down = await gatewayApp(gateway, baseUrlVariable, 'http://127.0.0.1:9');
  try {
    const api = caller(down, await down.createTenant({ currency: options.currency ?? 'PEN' }));
    await configure(api);
    return await work(api);
  } finally {
    await down.close();
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Requests to the app as `tenant`'s admin, or with `token`. */
export type Caller = (method: Method, url: string, payload?: unknown) => Promise<LightMyRequestResponse>;
type Answer = LightMyRequestResponse;

export function caller(t: TestApp, tenant: TestTenant, token?: string): Caller {
  return (method, url, payload) => t.request({ method, url, headers: tenant.headers(token), payload: payload as InjectOptions['payload'] });
}

/** Switches gateway `id` on with `credentials`, or throws with the answer. */
export async function configureGateway(admin: Caller, id: string, credentials: object): Promise<void> {
  const res = await admin('PUT', `${GATEWAYS}/${id}`, { enabled: true, credentials });
  if (res.statusCode !== 200) throw new Error(`${id} not configured: ${res.body}`);
}

/** The app's one gateway as GET /payments/gateways lists it to `api`, checked to be `id` and not configured yet. */
export async function expectListedNotConfigured(api: Caller, id: string) {
  const expect = await vitestExpect();
  const res = await api('GET', GATEWAYS);
  expect(res.statusCode).toBe(200);
  const [listed] = res.json().data;
  expect(listed).toMatchObject({ id, configured: false, enabled: false, public_credentials: {} });
  return listed;
}

/** Checks each answer is 422 GATEWAY_NOT_CONFIGURED and, given `double`, that the provider was never called. */
export function expectNotConfigured(answers: Answer[], double?: { requests: unknown[] }): void {
  for (const res of answers) {
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().error.code, 'GATEWAY_NOT_CONFIGURED', res.body);
  }
  if (double) assert.deepEqual(double.requests, [], 'the provider was called');
}

/**
 * PUTs `credentials` for gateway `id` as the store's admin and checks that the answer shows the `shown` ones
 * and only them, that neither it nor any later read carries another (a secret), and that the stored row
 * holds them all sealed.
 */
export async function expectCredentialsSealed<C extends object>(t: TestApp, tenant: TestTenant, id: string, credentials: C, shown: Array<keyof C & string>) {
  const expect = await vitestExpect();
  const admin = caller(t, tenant);
  const store = caller(t, tenant, tenant.storefrontToken);
  const secrets = Object.entries(credentials).filter(([name]) => !shown.includes(name as keyof C & string)).map(([, value]) => String(value));
  const res = await admin('PUT', `${GATEWAYS}/${id}`, { credentials });
  expect(res.statusCode).toBe(200);
  expect(res.json().data).toMatchObject({ id, configured: true, enabled: true });
  expect(res.json().data.public_credentials).toEqual(Object.fromEntries(shown.map((name) => [name, credentials[name]])));
  for (const read of [res, await admin('GET', `${GATEWAYS}/${id}`), await store('GET', GATEWAYS), await admin('GET', GATEWAYS)]) {
    for (const secret of secrets) expect(read.body).not.toContain(secret);
  }
  const [row] = await t.app.orm.em.getConnection().execute<Array<{ credentials_sealed: string }>>(
    `select credentials_sealed from payments_gateway_setting where tenant_id = ? and gateway = ?`,
    [tenant.id, id],
  );
  for (const secret of secrets) expect(row.credentials_sealed).not.toContain(secret);
  expect(JSON.parse(t.app.container.resolve(Secrets).open(row.credentials_sealed))).toEqual(credentials);
}

/** PUTs only `credentials` for gateway `id` and checks the 400 names each of `missing`, in order, as required, and nothing else. */
export async function expectMissingCredentials(api: Caller, id: string, credentials: object, missing: string[]): Promise<void> {
  const expect = await vitestExpect();
  const res = await api('PUT', `${GATEWAYS}/${id}`, { credentials });
  expect(res.statusCode).toBe(400);
  expect(res.json().error.details).toEqual(missing.map((name) => ({ path: `body.credentials.${name}`, message: 'is required' })));
}

/** PUTs a credential `name` gateway `id` does not know and checks the 400 names it first. */
export async function expectUnknownCredential(api: Caller, id: string, name: string): Promise<void> {
  const expect = await vitestExpect();
  const res = await api('PUT', `${GATEWAYS}/${id}`, { credentials: { [name]: 'x' } });
  expect(res.statusCode).toBe(400);
  expect(res.json().error.details[0].path).toBe(`body.credentials.${name}`);
}

/** An order of `quantity` units of a fresh product priced `price`. */
export async function createOrder(admin: Caller, price = 2500, quantity = 2): Promise<{ id: string; total: number; currency: string }> {
  const product = await admin('POST', '/api/v1/catalog/products', { title: 'Alpaca poncho', variants: [{ title: 'One', sku: `SKU-${randomUUID().slice(0, 8)}`, price }] });
  if (product.statusCode !== 201) throw new Error(`product not created: ${product.body}`);
  const variant = product.json().data.variants[0];
  const res = await admin('POST', '/api/v1/orders', {
    customer_email: 'rosa@example.com',
    line_items: [{ variant_id: variant.id, quantity }],
    shipping_address: { first_name: 'Rosa', last_name: 'Quispe', address1: 'Av. Sol 123', city: 'Cusco', country_code: 'PE', zip: '08002' },
  });
  if (res.statusCode !== 201) throw new Error(`order not created: ${res.body}`);
  return res.json().data;
}

/** Outbox rows of `type` about a payment (by `id` or `payment_id`). */
export async function outbox(t: TestApp, type: string, id: string) {
  return t.app.orm.em.getConnection().execute<Array<{ data: Record<string, unknown>; tenant_id: string }>>(
    `select data, tenant_id from core_outbox where type = ? and (data->>'id' = ? or data->>'payment_id' = ?) order by occurred_at, id`,
    [type, id, id],
  );
}

/** A payment's stored status, without GET's re-read from the provider (which would move a settled payment by itself). */
export async function storedStatus(t: TestApp, id: string): Promise<string> {
  const [row] = await t.app.orm.em.getConnection().execute<Array<{ status: string }>>(`select status from payments_payment where id = ?`, [id]);
  return row.status;
}

/** How many notifications were recorded with the provider's event id `eventId`. */
export async function notificationsRecorded(t: TestApp, eventId: string): Promise<number> {
  const [row] = await t.app.orm.em.getConnection().execute<Array<{ count: number }>>(`select count(*)::int as count from payments_notification where event_id = ?`, [eventId]);
  return row.count;
}

/**
 * A notification refused on the bare `/webhooks/<gateway>` path: 401 `INVALID_SIGNATURE` with the
 * error body, whether its store is unknown or its signature false (never a 404, nothing told).
 */
export function expectUnverified(res: { statusCode: number; body: string; json(): any }): void {
  assert.equal(res.statusCode, 401, res.body);
  const { code, message } = res.json().error;
  assert.equal(code, 'INVALID_SIGNATURE', res.body);
  assert.match(message, /names no store whose credentials verify its signature/);
}

/** Waits until `check` holds, asking every 100 ms for up to `ms`. */
export async function until(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('timed out waiting');
}

const ADDRESS = { first_name: 'Rosa', last_name: 'Quispe', address1: 'Av. Sol 123', city: 'Cusco', province: 'Cusco', country_code: 'PE', zip: '08000', phone: '+51987654321' };

/** A 2xx answer's `data`, or a failed expectation naming the body. */
export async function ok(res: { statusCode: number; body: string; json(): any }, status: number) {
  if (res.statusCode !== status) throw new Error(`expected ${status}, got ${res.statusCode}: ${res.body}`);
  return res.json().data;
}

/**
 * The whole store around a gateway (catalog to checkout, payments, workers on), one store in PEN
 * (or `options.currency`) with its gateway configured and a default warehouse: the setting of every
 * gateway's full-path test.
 */
export async function fullStore(
  gateway: QhatuPlugin,
  baseUrlVariable: string,
  baseUrl: string,
  configure: (admin: Caller) => Promise<void>,
  options: { currency?: string } = {},
) {
  const [checkout, discounts] = await Promise.all([import('@qhatu/plugin-checkout'), import('@qhatu/plugin-discounts')]);
  const t = await gatewayApp(gateway, baseUrlVariable, baseUrl, {
    workers: true,
    plugins: [...(await basePlugins()), discounts.default, orders, checkout.default, payments, gateway],
  });
  const shop = await t.createTenant({ currency: options.currency ?? 'PEN' });
  const admin = caller(t, shop);
  const store = caller(t, shop, shop.storefrontToken);
  await configure(admin);
  // The store's first warehouse is its default: where the order's stock is reserved.
  const warehouse: string = (await ok(await admin('POST', '/api/v1/inventory/warehouses', { name: 'Cusco', code: 'WH-CUSCO' }), 201)).id;

  /** A checkout awaiting payment for 2 units of a product with 5 in stock; and its variant. */
  async function awaitingPayment() {
    const product = await ok(await admin('POST', '/api/v1/catalog/products', { title: 'Alpaca scarf', variants: [{ title: 'Grey', sku: `SKU-${randomUUID().slice(0, 8)}`, price: 4000 }] }), 201);
    const variant = product.variants[0].id as string;
    await ok(await admin('POST', `/api/v1/inventory/warehouses/${warehouse}/stock/adjust`, { variant_id: variant, delta: 5, reason: 'received' }), 200);
    const cart = await ok(await store('POST', '/api/v1/checkout/carts', {}), 201);
    await ok(await store('POST', `/api/v1/checkout/carts/${cart.id}/items`, { variant_id: variant, quantity: 2 }), 201);
    const made = await ok(await store('POST', '/api/v1/checkout/checkouts', { cart_id: cart.id, email: 'rosa@example.com' }), 201);
    const shipping = { shipping_address: ADDRESS, billing_address: ADDRESS, shipping_rate: { carrier: 'Olva', service: 'Express', price: 1500 } };
    const c = await ok(await store('PUT', `/api/v1/checkout/checkouts/${made.id}/shipping`, shipping), 200);
    return { checkout: c as { id: string; status: string; order_id: string; total: number; currency: string }, variant };
  }

  return {
    t,
    shop,
    admin,
    store,
    warehouse,
    awaitingPayment,
    orderStatus: async (id: string) => (await admin('GET', `/api/v1/orders/${id}`)).json().data.status as string,
    checkoutStatus: async (id: string) => (await store('GET', `/api/v1/checkout/checkouts/${id}`)).json().data.status as string,
    level: async (warehouseId: string, variant: string) =>
      (await admin('GET', `/api/v1/inventory/warehouses/${warehouseId}/stock?filter[variant_id]=${variant}`)).json(),
  };
}
export type FullStore = Awaited<ReturnType<typeof fullStore>>;

/**
 * `fullStore` on `double` with what every gateway's full-path test checks along the way: `awaitingPayment()`
 * checks the checkout waits for 95.00 in the store's currency, `expectPaid` what a captured payment moved,
 * `expectRefundedInTwo` a refund in two parts,
 * `untilPaid` and `untilRefunded` wait for the order; `close()` stops the app and the double (for `afterAll`).
 */
export async function fullPath<D extends ProviderDouble>(
  gateway: QhatuPlugin,
  baseUrlVariable: string,
  double: D,
  configure: (admin: Caller) => Promise<void>,
  options: { currency?: string } = {},
) {
  const currency = options.currency ?? 'PEN';
  const expect = await vitestExpect();
  const s = await fullStore(gateway, baseUrlVariable, double.url, configure, { currency }).catch(async (error: unknown) => {
    await double.close();
    throw error;
  });
  type Placed = { id: string; order_id: string };

  /** Waits for the checkout completed and its order paid. */
  const untilPaid = (c: Placed) => until(async () => (await s.checkoutStatus(c.id)) === 'completed' && (await s.orderStatus(c.order_id)) === 'paid');

  return {
    ...s,
    double,
    /** A checkout awaiting payment for 2 units of a product with 5 in stock (95.00 with shipping); and its variant. */
    async awaitingPayment() {
      const placed = await s.awaitingPayment();
      expect(placed.checkout).toMatchObject({ status: 'payment_pending', order_id: expect.any(String), total: 9500, currency });
      return placed;
    },
    untilPaid,
    /** Waits for the checkout completed and its order paid, then checks the order's history, the 2 units of `variant` reserved and the captured event of `payment`. */
    async expectPaid(c: Placed, variant: string, payment: { id: string }, method: string) {
      await untilPaid(c);
      const history = (await s.admin('GET', `/api/v1/orders/${c.order_id}`)).json().data.history;
      expect(history.map((h: { from: string; to: string }) => `${h.from}→${h.to}`)).toEqual(['pending→confirmed', 'confirmed→paid']);
      expect(JSON.stringify(await s.level(s.warehouse, variant))).toContain('"reserved":2');
      const [captured] = await outbox(s.t, 'payments.payment.captured', payment.id);
      expect(captured.data).toMatchObject({ id: payment.id, order_id: c.order_id, amount: 9500, currency, method, status: 'paid' });
    },
    /** Refunds 15.00 of `payment`, then the rest with 0, each refunded at once: the order stays paid between them, the payment ends refunded in full. */
    async expectRefundedInTwo(c: Placed, payment: { id: string }) {
      const partial = await ok(await s.admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 1500, reason: 'requested_by_customer' }), 201);
      expect(partial).toMatchObject({ amount: 1500, status: 'refunded' });
      expect(await s.orderStatus(c.order_id)).toBe('paid');
      const rest = await ok(await s.admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0, reason: 'requested_by_customer' }), 201);
      expect(rest).toMatchObject({ amount: 8000, status: 'refunded' });
      expect((await s.admin('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'refunded', refunded_amount: 9500 });
    },
    /**
     * Pays the order of `c` in parts with `payPart(amount)`: the gateway's whole way to pay `amount`
     * (a session first where it needs one), answering with the last response. 25.00 first: the
     * order stays pending with 70.00 due and the checkout waits; then 70.01, refused with 422
     * PAYMENT_EXCEEDS_BALANCE before the provider is asked; then the 70.00 left, which pays the
     * order (the 2 units of `variant` reserved) and lets the storefront complete the checkout.
     */
    async expectPaidInParts(c: Placed, variant: string, payPart: (amount: number) => Promise<{ statusCode: number; body: string; json(): any }>) {
      const order = async () => (await s.admin('GET', `/api/v1/orders/${c.order_id}`)).json().data;
      const first = await ok(await payPart(2500), 201);
      expect(first).toMatchObject({ order_id: c.order_id, amount: 2500, currency, status: 'paid' });
      await until(async () => (await order()).amount_paid === 2500);
      expect(await order()).toMatchObject({ status: 'pending', total: 9500, amount_paid: 2500, amount_due: 7000, paid_at: null });
      expect(await s.checkoutStatus(c.id)).toBe('payment_pending');

      const asked = (double as { requests?: unknown[] }).requests?.length;
      const over = await payPart(7001);
      expect(over.statusCode, over.body).toBe(422);
      expect(over.json().error).toMatchObject({ code: 'PAYMENT_EXCEEDS_BALANCE', details: [{ path: 'body.amount', amount_due: 7000, order_total: 9500 }] });
      expect((double as { requests?: unknown[] }).requests?.length).toBe(asked);

      const rest = await ok(await payPart(7000), 201);
      expect(rest).toMatchObject({ amount: 7000, status: 'paid' });
      await until(async () => (await order()).status === 'paid');
      const paid = await order();
      expect(paid).toMatchObject({ amount_paid: 9500, amount_due: 0 });
      expect(paid.history.map((h: { from: string; to: string; note: string }) => `${h.from}→${h.to} ${h.note}`)).toEqual([`pending→confirmed payment ${rest.id}`, `confirmed→paid payment ${rest.id}`]);
      expect(JSON.stringify(await s.level(s.warehouse, variant))).toContain('"reserved":2');
      const completed = await ok(await s.store('POST', `/api/v1/checkout/checkouts/${c.id}/complete`, { order_id: c.order_id }), 200);
      expect(completed.status).toBe('completed');
      return { first, rest };
    },
    /** Waits for the order refunded and the 2 units of `variant` no longer reserved. */
    async untilRefunded(c: Placed, variant: string) {
      await until(async () => (await s.orderStatus(c.order_id)) === 'refunded');
      await until(async () => JSON.stringify(await s.level(s.warehouse, variant)).includes('"reserved":0'));
    },
    close: async () => {
      await s.t.close();
      await double.close();
    },
  };
}
export type FullPath<D extends ProviderDouble> = Awaited<ReturnType<typeof fullPath<D>>>;
