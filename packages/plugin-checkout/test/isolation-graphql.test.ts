import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addItem, ADDRESS, caller, CARTS, CHECKOUTS, checkoutApp, createCart, createCheckout, createProduct, createVolumeTier, customerToken, MISSING, type Caller, type ProductOut } from './helpers.js';

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
let adminA: Caller;
let storeA: Caller;
let storeB: Caller;
let productA: ProductOut;
beforeAll(async () => {
  t = await checkoutApp();
  a = await t.createTenant();
  b = await t.createTenant();
  adminA = caller(t, a);
  storeA = caller(t, a, a.storefrontToken);
  storeB = caller(t, b, b.storefrontToken);
  productA = await createProduct(adminA);
});
afterAll(async () => t?.close());

describe('tenant isolation', () => {
  it('B cannot read or change A’s cart or checkout, nor add A’s variants to its own cart', async () => {
    const cart = await createCart(storeA);
    await addItem(storeA, cart.id, productA.variants[0].id, 1);
    const checkout = await createCheckout(storeA, adminA);
    const v = productA.variants[0].id;
    const cartAnswers = [
      await storeB('GET', `${CARTS}/${cart.id}`),
      await storeB('POST', `${CARTS}/${cart.id}/items`, { variant_id: v, quantity: 1 }),
      await storeB('PUT', `${CARTS}/${cart.id}/items/${v}`, { quantity: 9 }),
      await storeB('DELETE', `${CARTS}/${cart.id}/items/${v}`),
      await storeB('POST', `${CARTS}/${cart.id}/coupon`, { code: 'X' }),
      await storeB('DELETE', `${CARTS}/${cart.id}/coupon`),
      await storeB('POST', CHECKOUTS, { cart_id: cart.id, email: 'b@example.com' }),
    ];
    for (const res of cartAnswers) expect(res.json().error.code).toBe('CART_NOT_FOUND');
    for (const res of [
      await storeB('GET', `${CHECKOUTS}/${checkout.id}`),
      await storeB('PUT', `${CHECKOUTS}/${checkout.id}/shipping`, { shipping_address: ADDRESS }),
      await storeB('POST', `${CHECKOUTS}/${checkout.id}/abandon`),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('CHECKOUT_NOT_FOUND');
    }
    const own = await createCart(storeB);
    expect((await storeB('POST', `${CARTS}/${own.id}/items`, { variant_id: v, quantity: 1 })).json().error.code).toBe('VARIANT_NOT_FOUND');
    // A's key with B's tenant header is refused before anything is read.
    const crossed = await t.request({ method: 'GET', url: `${CARTS}/${cart.id}`, headers: { authorization: `Bearer ${a.storefrontToken}`, 'x-tenant-id': b.id } });
    expect(crossed.statusCode).toBe(403);
    // Nothing changed for A.
    expect((await storeA('GET', `${CARTS}/${cart.id}`)).json().data).toMatchObject({ item_count: 1, checkout_id: null });
    expect((await storeA('GET', `${CHECKOUTS}/${checkout.id}`)).json().data).toMatchObject({ status: 'pending', shipping_address: null });
  });
});

const gql = (tenant: TestTenant, token: string, query: string, variables: Record<string, unknown> = {}) =>
  t.request({ method: 'POST', url: '/graphql', headers: tenant.headers(token), payload: { query, variables } });

describe('GraphQL', () => {
  it('cart, addToCart, updateCartItem, removeFromCart with the specification’s fields', async () => {
    const poncho = await createProduct(adminA, { title: 'Poncho', variants: [{ title: 'S', price: 1000 }, { title: 'L', price: 2500 }] });
    await createVolumeTier(adminA, poncho.id, 4, 1000);
    const cart = await createCart(storeA);
    const added = await gql(a, a.storefrontToken, `mutation($c: ID!, $v: ID!) { addToCart(cartId: $c, input: {variantId: $v, quantity: 4}) { id lines { id quantity variant { id title price } } total } }`, { c: cart.id, v: poncho.variants[0].id });
    expect(added.json().errors).toBeUndefined();
    const line = added.json().data.addToCart.lines[0];
    expect(added.json().data.addToCart).toEqual({ id: cart.id, lines: [{ id: line.id, quantity: 4, variant: { id: poncho.variants[0].id, title: 'S', price: 1000 } }], total: 3600 });

    const updated = await gql(a, a.storefrontToken, `mutation($c: ID!, $i: ID!) { updateCartItem(cartId: $c, itemId: $i, quantity: 2) { id total } }`, { c: cart.id, i: line.id });
    expect(updated.json().data.updateCartItem).toEqual({ id: cart.id, total: 2000 });

    const read = await gql(a, a.storefrontToken, `query($c: ID!) { cart(id: $c) { id subtotal total lines { quantity variant { price } } } }`, { c: cart.id });
    expect(read.json().data.cart).toEqual({ id: cart.id, subtotal: 2000, total: 2000, lines: [{ quantity: 2, variant: { price: 1000 } }] });

    const removed = await gql(a, a.storefrontToken, `mutation($c: ID!, $i: ID!) { removeFromCart(cartId: $c, itemId: $i) { id lines { id } } }`, { c: cart.id, i: line.id });
    expect(removed.json().data.removeFromCart).toEqual({ id: cart.id, lines: [] });
  });

  it('errors: RESOURCE_NOT_FOUND, VALIDATION_ERROR, UNAUTHENTICATED; another tenant’s cart is not found', async () => {
    const cart = await createCart(storeA);
    const code = (res: Awaited<ReturnType<typeof gql>>) => res.json().errors?.[0]?.extensions?.code;
    expect(code(await gql(a, a.storefrontToken, `{ cart(id: "${MISSING}") { id } }`))).toBe('RESOURCE_NOT_FOUND');
    expect(code(await gql(a, a.storefrontToken, `{ cart(id: "nope") { id } }`))).toBe('VALIDATION_ERROR');
    expect(code(await gql(a, a.storefrontToken, `mutation { addToCart(cartId: "${cart.id}", input: {variantId: "${productA.variants[0].id}", quantity: 0}) { id } }`))).toBe('VALIDATION_ERROR');
    expect(code(await gql(a, a.storefrontToken, `mutation { updateCartItem(cartId: "${cart.id}", itemId: "${MISSING}", quantity: 1) { id } }`))).toBe('RESOURCE_NOT_FOUND');
    expect(code(await gql(a, a.storefrontToken, `mutation { removeFromCart(cartId: "${cart.id}", itemId: "${MISSING}") { id } }`))).toBe('RESOURCE_NOT_FOUND');
    expect(code(await gql(b, b.storefrontToken, `{ cart(id: "${cart.id}") { id } }`))).toBe('RESOURCE_NOT_FOUND');
    expect(code(await gql(b, b.storefrontToken, `mutation { addToCart(cartId: "${cart.id}", input: {variantId: "${productA.variants[0].id}", quantity: 1}) { id } }`))).toBe('RESOURCE_NOT_FOUND');
    const anonymous = await t.request({ method: 'POST', url: '/graphql', headers: { 'x-tenant-id': a.id }, payload: { query: `{ cart(id: "${cart.id}") { id } }` } });
    expect(code(anonymous)).toBe('UNAUTHENTICATED');
  });

  it('a customer token reaches its own cart only', async () => {
    const { token } = await customerToken(t, a);
    const mine = await createCart(caller(t, a, token));
    const guest = await createCart(storeA);
    expect((await gql(a, token, `{ cart(id: "${mine.id}") { id } }`)).json().data.cart.id).toBe(mine.id);
    expect((await gql(a, token, `{ cart(id: "${guest.id}") { id } }`)).json().errors[0].extensions.code).toBe('RESOURCE_NOT_FOUND');
  });
});

describe('SQL statements per request', () => {
  it('adds to a cart with two lines, a tier and a coupon in at most 9 statements', async () => {
    const cart = await createCart(storeA);
    await addItem(storeA, cart.id, productA.variants[0].id, 1);
    const other = await createProduct(adminA, { variants: [{ title: 'x', price: 300 }] });
    await createVolumeTier(adminA, other.id, 2, 500);
    const coupon = (await adminA('POST', '/api/v1/discounts/coupons', { code: 'BUDGET10', type: 'percentage', value: 1000 })).json();
    await storeA('POST', `${CARTS}/${cart.id}/coupon`, { code: coupon.code });
    const { result, count, statements } = await t.countQueries(() =>
      storeA('POST', `${CARTS}/${cart.id}/items`, { variant_id: other.variants[0].id, quantity: 2 }),
    );
    expect(result.statusCode).toBe(201);
    expect(statements.filter((s) => /catalog_variant/.test(s))).toHaveLength(1);
    expect(statements.filter((s) => /discounts_volume_discount/.test(s))).toHaveLength(1);
    expect(count, statements.join('\n')).toBeLessThanOrEqual(9);
  });

  it('reads a cart in 6: BEGIN with the tenant context, cart, lines, variants with their products, volume tiers, COMMIT (priced on read)', async () => {
    const cart = await createCart(storeA);
    await addItem(storeA, cart.id, productA.variants[0].id, 1);
    const { count, statements } = await t.countQueries(() => storeA('GET', `${CARTS}/${cart.id}`));
    expect(count, statements.join('\n')).toBeLessThanOrEqual(6);
  });
});

describe('OpenAPI', () => {
  it('documents the checkout routes', async () => {
    const res = await t.request({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const paths = Object.keys(res.json().paths);
    expect(paths).toEqual(expect.arrayContaining(['/api/v1/checkout/carts', '/api/v1/checkout/carts/{id}/items/{variant_id}', '/api/v1/checkout/checkouts/{id}/shipping']));
  });

  it('documents POST /checkouts/{id}/complete as it behaves: order_id in, the completed checkout or the refusals out', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    const complete = doc.paths['/api/v1/checkout/checkouts/{id}/complete'].post;
    const ref: string = complete.requestBody.content['application/json'].schema.$ref;
    expect(doc.components.schemas[ref.split('/').pop()!]).toMatchObject({ required: ['order_id'] });
    expect(Object.keys(complete.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '409', '422']));
    for (const code of ['INVALID_STATE_TRANSITION', 'ORDER_MISMATCH', 'PAYMENT_NOT_CONFIRMED']) expect(complete.description).toContain(code);
  });
});
