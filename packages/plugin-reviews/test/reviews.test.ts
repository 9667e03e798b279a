import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, createProduct, MISSING, outbox, placeOrder, registerCustomer, REVIEWS, reviewsApp, type ProductRef } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let admin: ReturnType<typeof caller>;
let product: ProductRef;

beforeAll(async () => {
  t = await reviewsApp();
  shop = await t.createTenant();
  admin = caller(t, shop);
  product = await createProduct(t, shop);
});
afterAll(async () => t?.close());

const review = (productId: string, customerId: string, over: Record<string, unknown> = {}) => ({ product_id: productId, customer_id: customerId, rating: 4, title: 'Good', body: 'Soft and warm.', ...over });

describe('POST /api/v1/reviews', () => {
  it('creates a pending review as the signed-in customer, with the created event', async () => {
    const ana = await registerCustomer(t, shop);
    const res = await caller(t, shop, ana.token)('POST', REVIEWS, review(product.id, ana.id, { rating: 5, title: '  Warm ', body: 'Lovely wool.\r\nWould buy again.' }));
    expect(res.statusCode).toBe(201);
    const created = res.json().data;
    expect(created).toMatchObject({
      product_id: product.id, customer_id: ana.id, order_id: null, verified_purchase: false, author_name: 'Ana M.',
      rating: 5, title: 'Warm', body: 'Lovely wool.\nWould buy again.', status: 'pending', moderated_at: null,
    });
    const [event] = await outbox(t, 'reviews.review.created', created.id);
    expect(event).toMatchObject({ tenant_id: shop.id, source: '/qhatu/reviews', data: { id: created.id, product_id: product.id, customer_id: ana.id, rating: 5, status: 'pending', verified_purchase: false } });
  });

  it('takes a review with only the required fields', async () => {
    const ana = await registerCustomer(t, shop);
    const res = await caller(t, shop, ana.token)('POST', REVIEWS, { product_id: product.id, customer_id: ana.id, rating: 1 });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ rating: 1, title: null, body: null, status: 'pending' });
  });

  it('lets an admin key write for any customer of the store', async () => {
    const ana = await registerCustomer(t, shop);
    const res = await admin('POST', REVIEWS, review(product.id, ana.id));
    expect(res.statusCode).toBe(201);
    expect(res.json().data.customer_id).toBe(ana.id);
  });

  it('is one review per customer and product: 409 REVIEW_ALREADY_EXISTS, also when sent at once', async () => {
    const ana = await registerCustomer(t, shop);
    const other = await createProduct(t, shop);
    const send = () => caller(t, shop, ana.token)('POST', REVIEWS, review(other.id, ana.id));
    const answers = await Promise.all([send(), send(), send(), send()]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409]);
    const conflict = answers.find((r) => r.statusCode === 409)!.json();
    expect(conflict.error).toMatchObject({ code: 'REVIEW_ALREADY_EXISTS', message: 'This customer has already reviewed this product' });
    expect((await send()).json().error.code).toBe('REVIEW_ALREADY_EXISTS');
    // The same customer may still review another product.
    expect((await caller(t, shop, ana.token)('POST', REVIEWS, review(product.id, ana.id))).statusCode).toBe(201);
  });

  it('refuses a customer writing as someone else (403) and a public storefront key (403)', async () => {
    const ana = await registerCustomer(t, shop);
    const ben = await registerCustomer(t, shop);
    const asOther = await caller(t, shop, ana.token)('POST', REVIEWS, review(product.id, ben.id));
    expect(asOther.statusCode).toBe(403);
    expect(asOther.json().error).toMatchObject({ code: 'FORBIDDEN', message: 'A customer may only write reviews as themselves' });
    const storefront = await caller(t, shop, shop.storefrontToken)('POST', REVIEWS, review(product.id, ben.id));
    expect(storefront.statusCode).toBe(403);
    expect(storefront.json().error.code).toBe('FORBIDDEN');
    const none = await t.request({ method: 'POST', url: REVIEWS, headers: { 'x-tenant-id': shop.id }, payload: review(product.id, ben.id) });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('UNAUTHENTICATED');
    expect((await admin('GET', `/admin/reviews?filter[customer_id]=${ben.id}`)).json().data).toEqual([]);
  });

  it.each([
    ['a rating of 0', { rating: 0 }, 'body.rating'],
    ['a rating of 6', { rating: 6 }, 'body.rating'],
    ['a rating of 4.5', { rating: 4.5 }, 'body.rating'],
    ['a rating as a string', { rating: '5' }, 'body.rating'],
    ['no rating', { rating: undefined }, 'body.rating'],
    ['no product', { product_id: undefined }, 'body.product_id'],
    ['a product id that is no UUID', { product_id: 'poncho' }, 'body.product_id'],
    ['no customer', { customer_id: undefined }, 'body.customer_id'],
    ['a title over 200 characters', { title: 'x'.repeat(201) }, 'body.title'],
    ['a body over 5000 characters', { body: 'x'.repeat(5001) }, 'body.body'],
    ['a body that is a number', { body: 5 }, 'body.body'],
    ['an unknown field', { stars: 5 }, 'body'],
  ])('refuses %s with 400 VALIDATION_ERROR', async (_name, over, path) => {
    const ana = await registerCustomer(t, shop);
    const res = await admin('POST', REVIEWS, review(product.id, ana.id, over));
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(error.details)).toContain(path);
  });

  it('refuses references the store does not have with 422', async () => {
    const ana = await registerCustomer(t, shop);
    const unknownProduct = await admin('POST', REVIEWS, review(MISSING, ana.id));
    expect(unknownProduct.statusCode).toBe(422);
    expect(unknownProduct.json().error).toMatchObject({ code: 'PRODUCT_NOT_FOUND', details: [{ path: 'body.product_id' }] });
    const unknownCustomer = await admin('POST', REVIEWS, review(product.id, MISSING));
    expect(unknownCustomer.statusCode).toBe(422);
    expect(unknownCustomer.json().error).toMatchObject({ code: 'CUSTOMER_NOT_FOUND', details: [{ path: 'body.customer_id' }] });
    const unknownOrder = await admin('POST', REVIEWS, review(product.id, ana.id, { order_id: MISSING }));
    expect(unknownOrder.statusCode).toBe(422);
    expect(unknownOrder.json().error).toMatchObject({ code: 'ORDER_NOT_FOUND', details: [{ path: 'body.order_id' }] });
  });

  it('lets customers review products on sale only (a draft is unknown to them, not to the admin)', async () => {
    const draft = await createProduct(t, shop, { status: 'draft' });
    const ana = await registerCustomer(t, shop);
    const res = await caller(t, shop, ana.token)('POST', REVIEWS, review(draft.id, ana.id));
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('PRODUCT_NOT_FOUND');
    expect((await admin('POST', REVIEWS, review(draft.id, ana.id))).statusCode).toBe(201);
  });
});

describe('verified purchases (order_id)', () => {
  it("marks the review verified when the customer's paid order holds the product", async () => {
    const ana = await registerCustomer(t, shop);
    const order = await placeOrder(t, shop, ana.email, [product.variantId]);
    const res = await caller(t, shop, ana.token)('POST', REVIEWS, review(product.id, ana.id, { order_id: order.id }));
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ order_id: order.id, verified_purchase: true });
    const [event] = await outbox(t, 'reviews.review.created', res.json().data.id);
    expect(event.data).toMatchObject({ order_id: order.id, verified_purchase: true });
  });

  it("refuses another customer's order as if it did not exist (422 ORDER_NOT_FOUND)", async () => {
    const ana = await registerCustomer(t, shop);
    const ben = await registerCustomer(t, shop);
    const bens = await placeOrder(t, shop, ben.email, [product.variantId]);
    const res = await caller(t, shop, ana.token)('POST', REVIEWS, review(product.id, ana.id, { order_id: bens.id }));
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'ORDER_NOT_FOUND', message: 'This order is not an order of this customer' });
  });

  it('refuses an order that does not hold the product (422 PRODUCT_NOT_IN_ORDER)', async () => {
    const ana = await registerCustomer(t, shop);
    const other = await createProduct(t, shop);
    const order = await placeOrder(t, shop, ana.email, [other.variantId]);
    const res = await caller(t, shop, ana.token)('POST', REVIEWS, review(product.id, ana.id, { order_id: order.id }));
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'PRODUCT_NOT_IN_ORDER', details: [{ path: 'body.order_id' }] });
  });

  it('refuses an order not paid for (422 ORDER_NOT_PAID), and nothing is written', async () => {
    const ana = await registerCustomer(t, shop);
    const order = await placeOrder(t, shop, ana.email, [product.variantId], { paid: false });
    const res = await caller(t, shop, ana.token)('POST', REVIEWS, review(product.id, ana.id, { order_id: order.id }));
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'ORDER_NOT_PAID', message: 'An order that is pending does not prove a purchase' });
    expect((await admin('GET', `/admin/reviews?filter[customer_id]=${ana.id}`)).json().data).toEqual([]);
  });
});

describe('review text is plain text', () => {
  const ATTACKS = [
    '<script>alert(1)</script>Nice',
    '<img src=x onerror=alert(1)>Nice',
    '<svg/onload=alert(1)>Nice',
    '<scr<script>ipt>alert(1)</script>Nice',
    '<a href="javascript:alert(1)">Nice</a>',
    '<iframe src="https://evil.example"></iframe>Nice',
    '<!-- <script>alert(1)</script> -->Nice',
    '<style>body{display:none}</style>Nice',
    '<div onclick="alert(1)"',
  ];

  it.each(ATTACKS)('keeps no markup of %s in title, body or any list', async (attack) => {
    const ana = await registerCustomer(t, shop);
    const res = await admin('POST', REVIEWS, review(product.id, ana.id, { title: attack, body: `Before ${attack} after` }));
    expect(res.statusCode).toBe(201);
    const created = res.json().data;
    await admin('POST', `/admin/reviews/${created.id}/approve`);
    const listed = (await caller(t, shop, shop.storefrontToken)('GET', `${REVIEWS}/products/${product.id}?limit=100`)).json().data.find((r: { id: string }) => r.id === created.id);
    for (const text of [created.title, created.body, listed.title, listed.body]) {
      if (text === null) continue;
      expect(text).not.toMatch(/<[a-zA-Z/!?]/);
    }
    expect(created.body.startsWith('Before')).toBe(true);
  });

  it("keeps no markup of the customer's name in author_name", async () => {
    const customer = await admin('POST', '/api/v1/customers', { email: `${crypto.randomUUID().slice(0, 8)}@example.com`, first_name: '<img src=x onerror=alert(1)>Eve', last_name: '<b>Smith</b>' });
    const res = await admin('POST', REVIEWS, review(product.id, customer.json().data.id));
    expect(res.json().data.author_name).toBe('Eve S.');
  });

  it('keeps text that only looks like an angle bracket', async () => {
    const ana = await registerCustomer(t, shop);
    const res = await admin('POST', REVIEWS, review(product.id, ana.id, { title: 'I <3 it', body: '5 > 4 & 2 < 3, "quoted" it\'s' }));
    expect(res.json().data).toMatchObject({ title: 'I <3 it', body: '5 > 4 & 2 < 3, "quoted" it\'s' });
  });

  it('reads markup-only text as no text', async () => {
    const ana = await registerCustomer(t, shop);
    const res = await admin('POST', REVIEWS, review(product.id, ana.id, { title: '<b></b>', body: '<script>x</script>' }));
    expect(res.json().data).toMatchObject({ title: null, body: null });
  });
});
