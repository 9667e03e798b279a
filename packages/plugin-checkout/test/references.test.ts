import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addItem, caller, CARTS, CHECKOUTS, checkoutApp, createCart, createProduct, customerToken, MISSING, type Caller } from './helpers.js';

// Every reference a cart or checkout names is looked up in the caller's store: unknown is a 422.
let t: TestApp;
let a: TestTenant;
let b: TestTenant;
let adminA: Caller;
let storeA: Caller;
let customerA: string;
let customerB: string;
beforeAll(async () => {
  t = await checkoutApp();
  a = await t.createTenant({ currency: 'PEN' });
  b = await t.createTenant({ currency: 'PEN' });
  adminA = caller(t, a);
  storeA = caller(t, a, a.storefrontToken);
  const made = async (tenant: TestTenant, email: string) => {
    const res = await caller(t, tenant)('POST', '/api/v1/customers', { email, first_name: 'Rosa' });
    if (res.statusCode !== 201) throw new Error(`customer not created: ${res.body}`);
    return (res.json().data ?? res.json()).id as string;
  };
  customerA = await made(a, 'rosa@example.com');
  customerB = await made(b, 'rosa@example.com');
});
afterAll(async () => t?.close());

describe('customer_id', () => {
  it("a cart for a customer of the store is made; another store's customer or nobody is 422 CUSTOMER_NOT_FOUND", async () => {
    expect((await storeA('POST', CARTS, { customer_id: customerA })).json().data.customer_id).toBe(customerA);
    for (const id of [customerB, MISSING]) {
      const res = await storeA('POST', CARTS, { customer_id: id });
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'CUSTOMER_NOT_FOUND', details: [{ path: 'body.customer_id' }] });
    }
  });

  it('a disabled customer is 422 CUSTOMER_DISABLED', async () => {
    const res = await adminA('POST', '/api/v1/customers', { email: 'gone@example.com' });
    const id = (res.json().data ?? res.json()).id;
    expect((await adminA('PATCH', `/api/v1/customers/${id}`, { status: 'disabled' })).statusCode).toBe(200);
    expect((await storeA('POST', CARTS, { customer_id: id })).json().error.code).toBe('CUSTOMER_DISABLED');
  });

  it("a checkout naming another store's customer or nobody is 422 CUSTOMER_NOT_FOUND, and nothing is made", async () => {
    const product = await createProduct(adminA);
    const cart = await createCart(storeA);
    await addItem(storeA, cart.id, product.variants[0].id, 1);
    for (const id of [customerB, MISSING]) {
      const res = await storeA('POST', CHECKOUTS, { cart_id: cart.id, email: 'a@example.com', customer_id: id });
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'CUSTOMER_NOT_FOUND', details: [{ path: 'body.customer_id' }] });
    }
    expect((await storeA('GET', `${CARTS}/${cart.id}`)).json().data.checkout_id).toBeNull();
    const made = await storeA('POST', CHECKOUTS, { cart_id: cart.id, email: 'a@example.com', customer_id: customerA });
    expect(made.statusCode).toBe(201);
    expect(made.json().data.customer_id).toBe(customerA);
  });

  it("a customer token's own id needs no customer record lookup", async () => {
    const { token, customerId } = await customerToken(t, a);
    expect((await caller(t, a, token)('POST', CARTS, { customer_id: customerId })).statusCode).toBe(201);
  });
});

describe('currency', () => {
  it('is an ISO 4217 code: ZZQ is 400 INVALID_REQUEST on a cart and on a checkout; EUR, well formed but not sold in, is 422', async () => {
    const res = await storeA('POST', CARTS, { currency: 'ZZQ' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'INVALID_REQUEST', details: [{ path: 'body.currency', message: 'is not an ISO 4217 currency code' }] });
    expect((await storeA('POST', CARTS, { currency: 'EUR' })).json().error).toMatchObject({ code: 'CURRENCY_NOT_LISTED', details: [{ path: 'body.currency' }] });
    const cart = await createCart(storeA);
    const checkout = await storeA('POST', CHECKOUTS, { cart_id: cart.id, email: 'a@example.com', currency: 'ZZQ' });
    expect(checkout.statusCode).toBe(400);
    expect(checkout.json().error).toMatchObject({ code: 'INVALID_REQUEST', details: [{ path: 'body.currency' }] });
  });
});
