import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, caller, createOrder, createVariants, MISSING, ORDERS, ordersApp, outbox, registerCustomer, type OrderJson } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
beforeAll(async () => {
  t = await ordersApp();
  shop = await t.createTenant({ currency: 'PEN' });
});
afterAll(async () => t?.close());

const admin = () => caller(t, shop);

describe('POST /orders', () => {
  it("charges the catalog's price, snapshots the lines and adds the totals", async () => {
    const [a, b] = await createVariants(t, shop, [4500, 1250], { title: 'Chullo' }, { currency: 'PEN' });
    const res = await admin()('POST', ORDERS, {
      customer_email: 'Rosa@Example.com',
      line_items: [{ variant_id: a.id, quantity: 2, price: 1 }, { variant_id: b.id, quantity: 3 }],
      shipping_address: ADDRESS,
    });
    expect(res.statusCode).toBe(201);
    const order = res.json().data as OrderJson;
    expect(order).toMatchObject({ status: 'pending', currency: 'PEN', customer_email: 'rosa@example.com', customer_id: null, subtotal: 9000 + 3750, total: 12750, shipping_address: ADDRESS, fulfillments: [], history: [] });
    expect(order.line_items).toEqual([
      { id: expect.any(String), variant_id: a.id, product_id: a.product_id, title: 'Chullo', variant_title: 'Size 1', sku: expect.stringMatching(/^SKU-/), quantity: 2, fulfilled_quantity: 0, backordered_quantity: 0, unit_price_amount: 4500, total_amount: 9000, requires_shipping: true, discount_amount: 0, tax_class: 'standard', tax_rate: 0, tax_amount: 0, offer_id: null },
      { id: expect.any(String), variant_id: b.id, product_id: b.product_id, title: 'Chullo', variant_title: 'Size 2', sku: expect.stringMatching(/^SKU-/), quantity: 3, fulfilled_quantity: 0, backordered_quantity: 0, unit_price_amount: 1250, total_amount: 3750, requires_shipping: true, discount_amount: 0, tax_class: 'standard', tax_rate: 0, tax_amount: 0, offer_id: null },
    ]);
    // A higher sent price is not charged either: the catalog's price is the price.
    const higher = await createOrder(t, shop, [{ variant_id: a.id, quantity: 1, price: 99999 }]);
    expect(higher.total).toBe(4500);
  });

  it('keeps the snapshot when the catalog price changes later', async () => {
    const [v] = await createVariants(t, shop, [2000]);
    const order = await createOrder(t, shop, [{ variant_id: v.id, quantity: 1 }]);
    const patched = await admin()('PATCH', `/api/v1/catalog/products/${v.product_id}/variants/${v.id}`, { price: 500 });
    expect(patched.statusCode).toBe(200);
    const read = (await admin()('GET', `${ORDERS}/${order.id}`)).json().data;
    expect(read.line_items[0]).toMatchObject({ unit_price_amount: 2000, total_amount: 2000 });
    expect(read.total).toBe(2000);
  });

  it('merges lines of one variant', async () => {
    const [v] = await createVariants(t, shop, [300]);
    const order = await createOrder(t, shop, [{ variant_id: v.id, quantity: 1 }, { variant_id: v.id, quantity: 2 }]);
    expect(order.line_items).toHaveLength(1);
    expect(order.line_items[0]).toMatchObject({ quantity: 3, total_amount: 900 });
  });

  it('links the customer with that e-mail, when the store has one', async () => {
    const created = await admin()('POST', '/api/v1/customers', { email: 'known@example.com', first_name: 'Kusi' });
    const [v] = await createVariants(t, shop, [100]);
    const order = await createOrder(t, shop, [{ variant_id: v.id, quantity: 1 }], { customer_email: 'KNOWN@example.com' });
    expect(order.customer_id).toBe(created.json().data.id);
  });

  it('refuses a variant not priced in the store currency (mixed or not), unknown variants and missing shipping addresses (422)', async () => {
    // A variant priced in another currency before the catalog refused one: written as such data was.
    const [usd] = await createVariants(t, shop, [100]);
    await t.app.orm.em.getConnection().execute(`update catalog_variant set currency = 'USD' where id = ?`, [usd.id]);
    const [pen] = await createVariants(t, shop, [100], {}, { currency: 'PEN' });
    const mixed = await admin()('POST', ORDERS, { customer_email: 'a@example.com', line_items: [{ variant_id: pen.id, quantity: 1 }, { variant_id: usd.id, quantity: 1 }], shipping_address: ADDRESS });
    expect(mixed.statusCode).toBe(422);
    expect(mixed.json().error).toMatchObject({
      code: 'VARIANT_CURRENCY_MISMATCH',
      details: [{ path: 'body.line_items.1.variant_id', variant_id: usd.id, currency: 'USD', store_currency: 'PEN' }],
    });
    const unknown = await admin()('POST', ORDERS, { customer_email: 'a@example.com', line_items: [{ variant_id: MISSING, quantity: 1 }], shipping_address: ADDRESS });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error).toMatchObject({ code: 'VARIANT_NOT_FOUND', details: [{ variant_id: MISSING }] });
    const noAddress = await admin()('POST', ORDERS, { customer_email: 'a@example.com', line_items: [{ variant_id: pen.id, quantity: 1 }] });
    expect(noAddress.statusCode).toBe(422);
    expect(noAddress.json().error.code).toBe('SHIPPING_ADDRESS_REQUIRED');
    const [digital] = await createVariants(t, shop, [700], {}, { requires_shipping: false });
    const ok = await admin()('POST', ORDERS, { customer_email: 'a@example.com', line_items: [{ variant_id: digital.id, quantity: 1 }] });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().data.shipping_address).toBeNull();
  });

  it('refuses with 422 VARIANT_CURRENCY_MISMATCH a USD store\'s variant priced in PEN, rather than a PEN order taxed as USD; nothing is written', async () => {
    const usdStore = await t.createTenant({ currency: 'USD' });
    const [legacy, dollars] = await createVariants(t, usdStore, [3000, 500], { title: 'Manta' }, { currency: 'USD' });
    await t.app.orm.em.getConnection().execute(`update catalog_variant set currency = 'PEN' where id = ?`, [legacy.id]);
    const body = { customer_email: 'a@example.com', line_items: [{ variant_id: legacy.id, quantity: 2 }], shipping_address: ADDRESS };
    const refused = await caller(t, usdStore)('POST', ORDERS, body);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toEqual({
      code: 'VARIANT_CURRENCY_MISMATCH',
      message: expect.stringContaining('USD'),
      details: [{ path: 'body.line_items.0.variant_id', message: "is priced in PEN, not in the store's USD", variant_id: legacy.id, currency: 'PEN', store_currency: 'USD' }],
    });
    expect((await caller(t, usdStore)('GET', ORDERS)).json().data).toEqual([]);
    // The store's own currency sells, and the first order still gets the first number.
    const sold = await createOrder(t, usdStore, [{ variant_id: dollars.id, quantity: 1 }]);
    expect(sold).toMatchObject({ currency: 'USD', total: 500, number: 1001 });
  });

  it('answers 400 VALIDATION_ERROR to bad bodies', async () => {
    const [v] = await createVariants(t, shop, [100]);
    const line = { variant_id: v.id, quantity: 1 };
    const bad: unknown[] = [
      {},
      { customer_email: 'not-an-email', line_items: [line], shipping_address: ADDRESS },
      { customer_email: 'a@example.com', line_items: [], shipping_address: ADDRESS },
      { customer_email: 'a@example.com', line_items: [{ variant_id: 'nope', quantity: 1 }], shipping_address: ADDRESS },
      { customer_email: 'a@example.com', line_items: [{ ...line, quantity: 0 }], shipping_address: ADDRESS },
      { customer_email: 'a@example.com', line_items: [{ ...line, quantity: '2' }], shipping_address: ADDRESS },
      { customer_email: 'a@example.com', line_items: [{ ...line, price: -5 }], shipping_address: ADDRESS },
      { customer_email: 'a@example.com', line_items: [line], shipping_address: { ...ADDRESS, country_code: 'peru' } },
      { customer_email: 'a@example.com', line_items: [line], shipping_address: { ...ADDRESS, city: undefined } },
      { customer_email: 'a@example.com', line_items: [line], shipping_address: ADDRESS, status: 'paid' },
    ];
    for (const body of bad) {
      const res = await admin()('POST', ORDERS, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('publishes orders.order.created with exactly the specification fields', async () => {
    const [v] = await createVariants(t, shop, [4200], { title: 'Manta' });
    const order = await createOrder(t, shop, [{ variant_id: v.id, quantity: 2 }]);
    const [event] = await outbox(t, 'orders.order.created', order.id);
    expect(event.tenant_id).toBe(shop.id);
    expect(event.data).toEqual({
      id: order.id,
      status: 'pending',
      total: 8400,
      currency: 'PEN',
      customer: { email: 'rosa@example.com', name: 'Rosa Quispe' },
      items: [{ sku: order.line_items[0].sku, name: 'Manta', qty: 2, price: 4200 }],
      created_at: order.created_at,
    });
  });
});

describe('order numbers', () => {
  it('are sequential per store from 1001 and distinct under 20 concurrent creates', async () => {
    const fresh = await t.createTenant();
    const [v] = await createVariants(t, fresh, [100]);
    const first = await createOrder(t, fresh, [{ variant_id: v.id, quantity: 1 }]);
    expect(first.number).toBe(1001);
    const results = await Promise.all(Array.from({ length: 20 }, () => createOrder(t, fresh, [{ variant_id: v.id, quantity: 1 }])));
    const numbers = results.map((o) => o.number).sort((x, y) => x - y);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => 1002 + i));
    // Another store counts on its own.
    const other = await t.createTenant();
    const [w] = await createVariants(t, other, [100]);
    expect((await createOrder(t, other, [{ variant_id: w.id, quantity: 1 }])).number).toBe(1001);
  });
});

describe('GET /orders', () => {
  let store: TestTenant;
  let orders: OrderJson[];
  let customerId: string;
  beforeAll(async () => {
    store = await t.createTenant();
    const [cheap, dear] = await createVariants(t, store, [100, 5000]);
    customerId = (await caller(t, store)('POST', '/api/v1/customers', { email: 'vip@example.com' })).json().data.id;
    orders = [];
    orders.push(await createOrder(t, store, [{ variant_id: cheap.id, quantity: 1 }], { customer_email: 'vip@example.com' }));
    orders.push(await createOrder(t, store, [{ variant_id: dear.id, quantity: 2 }], { customer_email: 'walk-in@example.com', shipping_address: { ...ADDRESS, first_name: 'Tupac', last_name: 'Yupanqui' } }));
    orders.push(await createOrder(t, store, [{ variant_id: cheap.id, quantity: 5 }], { customer_email: 'vip@example.com' }));
    const cancelled = await caller(t, store)('POST', `${ORDERS}/${orders[1].id}/cancel`, { reason: 'customer changed their mind' });
    expect(cancelled.statusCode).toBe(200);
  });
  const get = (url: string, token?: string) => caller(t, store, token)('GET', url);
  const numbersOf = (res: { json(): { data: OrderJson[] } }) => res.json().data.map((o) => o.number);

  it('lists newest first by default, with lines and fulfillments', async () => {
    const res = await get(ORDERS);
    expect(res.statusCode).toBe(200);
    expect(numbersOf(res)).toEqual([1003, 1002, 1001]);
    expect(res.json().data[0].line_items).toHaveLength(1);
    expect(res.json().meta.pagination).toEqual({ cursor: null, has_next: false, limit: 25 });
  });

  it('sorts by created_at, number and total', async () => {
    expect(numbersOf(await get(`${ORDERS}?sort=created_at`))).toEqual([1001, 1002, 1003]);
    expect(numbersOf(await get(`${ORDERS}?sort=-number`))).toEqual([1003, 1002, 1001]);
    expect(numbersOf(await get(`${ORDERS}?sort=total`))).toEqual([1001, 1003, 1002]);
    expect(numbersOf(await get(`${ORDERS}?sort=-total`))).toEqual([1002, 1003, 1001]);
  });

  it('filters by status, customer id and customer e-mail', async () => {
    expect(numbersOf(await get(`${ORDERS}?filter[status]=cancelled`))).toEqual([1002]);
    expect(numbersOf(await get(`${ORDERS}?filter[status]=pending`))).toEqual([1003, 1001]);
    expect(numbersOf(await get(`${ORDERS}?filter[customer_id]=${customerId}`))).toEqual([1003, 1001]);
    expect(numbersOf(await get(`${ORDERS}?filter[customer_email]=WALK-IN@example.com`))).toEqual([1002]);
  });

  it('searches number, e-mail and names with q', async () => {
    expect(numbersOf(await get(`${ORDERS}?q=1002`))).toEqual([1002]);
    expect(numbersOf(await get(`${ORDERS}?q=%231003`))).toEqual([1003]);
    expect(numbersOf(await get(`${ORDERS}?q=vip`))).toEqual([1003, 1001]);
    expect(numbersOf(await get(`${ORDERS}?q=yupan`))).toEqual([1002]);
    expect(numbersOf(await get(`${ORDERS}?q=nobody`))).toEqual([]);
  });

  it('pages with opaque cursors and clamps the limit at 100', async () => {
    const first = await get(`${ORDERS}?limit=2&sort=number`);
    expect(numbersOf(first)).toEqual([1001, 1002]);
    const { cursor, has_next } = first.json().meta.pagination;
    expect(has_next).toBe(true);
    const second = await get(`${ORDERS}?limit=2&sort=number&cursor=${cursor}`);
    expect(numbersOf(second)).toEqual([1003]);
    expect(second.json().meta.pagination).toMatchObject({ cursor: null, has_next: false });
    expect((await get(`${ORDERS}?limit=1000`)).json().meta.pagination.limit).toBe(100);
  });

  it('answers 400 to unknown filters, bad sorts, bad values and foreign cursors', async () => {
    for (const query of ['filter[color]=red', 'sort=email', 'filter[status]=lost', 'filter[customer_id]=nope', 'limit=0', 'limit=abc', 'cursor=%%%', 'other=1']) {
      const res = await get(`${ORDERS}?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('GET /customers/:id/orders lists one customer with the same parameters', async () => {
    const res = await get(`/api/v1/customers/${customerId}/orders?sort=total`);
    expect(res.statusCode).toBe(200);
    expect(numbersOf(res)).toEqual([1001, 1003]);
    expect(numbersOf(await get(`/api/v1/customers/${customerId}/orders?filter[status]=cancelled`))).toEqual([]);
    expect((await get(`/api/v1/customers/${MISSING}/orders`)).json().error.code).toBe('CUSTOMER_NOT_FOUND');
    expect((await get('/api/v1/customers/nope/orders')).statusCode).toBe(400);
    expect((await get(`/api/v1/customers/${customerId}/orders?filter[nope]=1`)).statusCode).toBe(400);
  });

  it('GET /orders/:id reads one, 404 ORDER_NOT_FOUND or 400 for a malformed id', async () => {
    const res = await get(`${ORDERS}/${orders[1].id}`);
    expect(res.json().data).toMatchObject({ number: 1002, status: 'cancelled', cancel_reason: 'customer changed their mind', history: [{ action: 'cancel', from: 'pending', to: 'cancelled', note: 'customer changed their mind' }] });
    const missing = await get(`${ORDERS}/${MISSING}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('ORDER_NOT_FOUND');
    expect((await get(`${ORDERS}/not-a-uuid`)).statusCode).toBe(400);
  });
});

describe('who may see orders', () => {
  it('storefront keys can neither create nor list nor read orders (403); no token is a 401', async () => {
    const [v] = await createVariants(t, shop, [100]);
    const order = await createOrder(t, shop, [{ variant_id: v.id, quantity: 1 }]);
    const store = caller(t, shop, shop.storefrontToken);
    expect((await store('POST', ORDERS, { customer_email: 'a@example.com', line_items: [{ variant_id: v.id, quantity: 1 }], shipping_address: ADDRESS })).statusCode).toBe(403);
    expect((await store('GET', ORDERS)).statusCode).toBe(403);
    expect((await store('GET', `${ORDERS}/${order.id}`)).statusCode).toBe(403);
    expect((await store('GET', `${ORDERS}/${order.id}/fulfillments`)).statusCode).toBe(403);
    for (const action of ['cancel', 'ready-to-ship', 'deliver', 'fulfillments']) {
      expect((await store('POST', `${ORDERS}/${order.id}/${action}`, {})).statusCode, action).toBe(403);
    }
    const anonymous = await t.request({ method: 'GET', url: ORDERS, headers: { 'x-tenant-id': shop.id } });
    expect(anonymous.statusCode).toBe(401);
  });

  it('a customer token sees its own orders only, and cannot write', async () => {
    const ana = await registerCustomer(t, shop, 'ana@example.com');
    const other = await registerCustomer(t, shop, 'other@example.com');
    const [v] = await createVariants(t, shop, [100]);
    const mine = await createOrder(t, shop, [{ variant_id: v.id, quantity: 1 }], { customer_email: 'ana@example.com' });
    const theirs = await createOrder(t, shop, [{ variant_id: v.id, quantity: 1 }], { customer_email: 'other@example.com' });
    expect(mine.customer_id).toBe(ana.id);
    const asAna = caller(t, shop, ana.token);
    const listed = await asAna('GET', `${ORDERS}?limit=100`);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data.map((o: OrderJson) => o.id)).toEqual([mine.id]);
    // A filter naming someone else does not widen the view.
    expect((await asAna('GET', `${ORDERS}?filter[customer_id]=${other.id}`)).json().data).toEqual([]);
    expect((await asAna('GET', `${ORDERS}/${mine.id}`)).statusCode).toBe(200);
    expect((await asAna('GET', `${ORDERS}/${theirs.id}`)).statusCode).toBe(404);
    expect((await asAna('GET', `${ORDERS}/${theirs.id}/fulfillments`)).statusCode).toBe(404);
    expect((await asAna('GET', `/api/v1/customers/${ana.id}/orders`)).json().data.map((o: OrderJson) => o.id)).toEqual([mine.id]);
    expect((await asAna('GET', `/api/v1/customers/${other.id}/orders`)).statusCode).toBe(404);
    expect((await asAna('POST', ORDERS, { customer_email: 'ana@example.com', line_items: [{ variant_id: v.id, quantity: 1 }], shipping_address: ADDRESS })).statusCode).toBe(403);
    expect((await asAna('POST', `${ORDERS}/${mine.id}/cancel`, {})).statusCode).toBe(403);
  });
});
