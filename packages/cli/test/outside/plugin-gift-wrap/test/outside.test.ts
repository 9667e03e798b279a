import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import project from '../../../qhatu.config.js';

let t: TestApp;
let shop: TestTenant;
beforeAll(async () => {
  t = await createTestApp({ plugins: project.plugins, workers: true });
  shop = await t.createTenant({ currency: 'PEN' });
});
afterAll(async () => t?.close());

async function placeOrder(giftWrap?: boolean) {
  const product = await t.request({
    method: 'POST',
    url: '/api/v1/catalog/products',
    headers: shop.headers(),
    payload: { title: 'Alpaca scarf', status: 'active', variants: [{ title: 'Grey', price: 8900 }] },
  });
  expect(product.statusCode, product.body).toBe(201);
  const order = await t.request({
    method: 'POST',
    url: '/api/v1/orders',
    headers: shop.headers(),
    payload: {
      customer_email: 'ana@example.com',
      shipping_address: { first_name: 'Ana', last_name: 'Quispe', address1: 'Av. Sol 123', city: 'Cusco', country_code: 'PE', zip: '08000' },
      line_items: [{ variant_id: product.json().data.variants[0].id, quantity: 1 }],
      ...(giftWrap === undefined ? {} : { custom_fields: { gift_wrap: giftWrap } }),
    },
  });
  expect(order.statusCode, order.body).toBe(201);
  return order.json().data;
}

describe('the gift-wrap plugin', () => {
  it('adds gift_wrap to orders: taken, answered, defaulted and checked', async () => {
    const wrapped = await placeOrder(true);
    expect(wrapped.custom_fields).toEqual({ gift_wrap: true });
    const read = await t.request({ method: 'GET', url: `/api/v1/orders/${wrapped.id}`, headers: shop.headers() });
    expect(read.json().data.custom_fields).toEqual({ gift_wrap: true });
    expect((await placeOrder()).custom_fields).toEqual({ gift_wrap: false });
    const wrong = await t.request({ method: 'PATCH', url: `/api/v1/orders/${wrapped.id}`, headers: shop.headers(), payload: { custom_fields: { gift_wrap: 'yes' } } });
    expect(wrong.statusCode).toBe(400);
  });

  it('sets a paper aside for each wrapped order, in a job queued by its subscriber', async () => {
    const wrapped = await placeOrder(true);
    await t.settle();
    const papers = await t.request({ method: 'GET', url: '/api/v1/gift-wrap/items?limit=100', headers: shop.headers(shop.storefrontToken) });
    expect(papers.json().data.map((p: { description: string }) => p.description)).toContain(wrapped.id);
  });

  it('answers the papers through GraphQL, and keeps writing them to staff who hold gift-wrap.write', async () => {
    const added = await t.request({ method: 'POST', url: '/api/v1/gift-wrap/items', headers: shop.headers(), payload: { title: 'Andean weave' } });
    expect(added.statusCode).toBe(201);
    const res = await t.request({ method: 'POST', url: '/graphql', headers: shop.headers(shop.storefrontToken), payload: { query: '{ giftWrapPapers { title ribbon } }' } });
    expect(res.json().data.giftWrapPapers).toContainEqual({ title: 'Andean weave', ribbon: null });
    const refused = await t.request({ method: 'POST', url: '/api/v1/gift-wrap/items', headers: shop.headers(shop.storefrontToken), payload: { title: 'X' } });
    expect(refused.statusCode).toBe(403);
  });
});
