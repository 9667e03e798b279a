import { randomUUID } from 'node:crypto';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import payments from '../src/index.js';
import { caller, ok, PAYMENTS, SESSIONS, until, type Caller } from '../src/testing.js';
import { AcmeDouble, acmePlugin } from './fixtures/acme.js';
import { AcmeFormDouble, acmeFormPlugin } from './fixtures/acme-form.js';

// What an order was paid: part payments, what is still due (payments in progress counted), the
// currency, concurrent payments, and refunds of one payment among several. Workers run the
// orders plugin's job, as in production.
let double: AcmeDouble;
let form: AcmeFormDouble;
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let store: Caller;
beforeAll(async () => {
  double = await new AcmeDouble('acme_live_key').start();
  form = await new AcmeFormDouble('form_key').start();
  t = await createTestApp({
    plugins: [media, catalog, customers, inventory, orders, payments, acmePlugin, acmeFormPlugin],
    env: { QHATU_GATEWAY_ACME_BASE_URL: double.url, QHATU_GATEWAY_ACME_FORM_BASE_URL: form.url },
    workers: true,
  });
  shop = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
  await ok(await admin('PUT', '/api/v1/payments/gateways/acme', { credentials: { api_key: 'acme_live_key', signing_key: 'k' } }), 200);
  await ok(await admin('PUT', '/api/v1/payments/gateways/acme-form', { credentials: { api_key: 'form_key' } }), 200);
});
afterAll(async () => {
  await t?.close();
  await double?.close();
  await form?.close();
});

/** An order of one digital item (nothing to reserve) priced `total`. */
async function orderOf(total: number): Promise<{ id: string; total: number; currency: string }> {
  const product = await ok(await admin('POST', '/api/v1/catalog/products', { title: 'Gift card', variants: [{ title: 'One', sku: `GC-${randomUUID().slice(0, 8)}`, price: total, requires_shipping: false }] }), 201);
  return ok(await admin('POST', '/api/v1/orders', { customer_email: 'rosa@example.com', line_items: [{ variant_id: product.variants[0].id, quantity: 1 }] }), 201);
}

const pay = (order: { id: string }, amount: number, token = 'tok_ok', currency = 'PEN') =>
  store('POST', PAYMENTS, { order_id: order.id, gateway: 'acme', amount, currency, acme_token: token, installments: 1 });
const orderOf_ = async (id: string) => ok(await admin('GET', `/api/v1/orders/${id}`), 200);
const refund = async (id: string, amount = 0) => ok(await admin('POST', `${PAYMENTS}/${id}/refund`, { amount }), 201);
/** Waits until the order's job has recorded `paid` (its `amount_paid`). */
const untilRecorded = (id: string, paid: number) => until(async () => (await orderOf_(id)).amount_paid === paid);

describe('what an order is paid', () => {
  it('a part payment leaves the order pending with what is due; the rest pays it; more than is due is refused', async () => {
    const order = await orderOf(20_000);
    const cent = await ok(await pay(order, 1), 201);
    expect(cent).toMatchObject({ status: 'paid', amount: 1 });
    await untilRecorded(order.id, 1);
    expect(await orderOf_(order.id)).toMatchObject({ status: 'pending', amount_paid: 1, amount_refunded: 0, amount_due: 19_999, paid_at: null });

    const tooMuch = await pay(order, 20_000);
    expect(tooMuch.statusCode).toBe(422);
    expect(tooMuch.json().error).toMatchObject({
      code: 'PAYMENT_EXCEEDS_BALANCE',
      message: 'The payment exceeds what is still due on the order: at most 19999 PEN',
      details: [{ path: 'body.amount', amount_due: 19_999, order_total: 20_000 }],
    });
    const rest = await ok(await pay(order, 19_999), 201);
    expect(rest.status).toBe('paid');
    await until(async () => (await orderOf_(order.id)).status === 'paid');
    const paid = await orderOf_(order.id);
    expect(paid).toMatchObject({ amount_paid: 20_000, amount_due: 0 });
    expect(paid.history.map((h: { from: string; to: string; note: string }) => `${h.from}→${h.to} ${h.note}`)).toEqual([`pending→confirmed payment ${rest.id}`, `confirmed→paid payment ${rest.id}`]);
    // Paid: nothing more is taken.
    const after = await pay(order, 1);
    expect(after.statusCode).toBe(409);
    expect(after.json().error.code).toBe('ORDER_NOT_PAYABLE');
  });

  it('one payment of two refunded: the order is not refunded and the other still counts; refunding both refunds it', async () => {
    const order = await orderOf(20_000);
    const small = await ok(await pay(order, 1), 201);
    const big = await ok(await pay(order, 19_999), 201);
    await until(async () => (await orderOf_(order.id)).status === 'paid');

    expect(await refund(big.id)).toMatchObject({ amount: 19_999, status: 'refunded' });
    expect(await orderOf_(order.id)).toMatchObject({ status: 'paid', amount_paid: 20_000, amount_refunded: 19_999, amount_due: 0 });
    expect((await ok(await admin('GET', `${PAYMENTS}/${small.id}`), 200)).status).toBe('paid');

    expect(await refund(small.id)).toMatchObject({ amount: 1, status: 'refunded' });
    const refunded = await orderOf_(order.id);
    expect(refunded).toMatchObject({ status: 'refunded', amount_paid: 20_000, amount_refunded: 20_000 });
    expect(refunded.history.at(-1)).toMatchObject({ from: 'paid', to: 'refunded', note: expect.stringContaining(small.id) });
  });

  it('a refund of part of a part payment reopens that much of the balance while the order awaits payment', async () => {
    const order = await orderOf(10_000);
    const part = await ok(await pay(order, 6_000), 201);
    await untilRecorded(order.id, 6_000);
    await refund(part.id, 1_000);
    expect(await orderOf_(order.id)).toMatchObject({ status: 'pending', amount_paid: 6_000, amount_refunded: 1_000, amount_due: 5_000 });
    expect((await pay(order, 5_001)).json().error.code).toBe('PAYMENT_EXCEEDS_BALANCE');
    await ok(await pay(order, 5_000), 201);
    await until(async () => (await orderOf_(order.id)).status === 'paid');
  });

  it('payments in progress count against what is due; a failed one frees its amount', async () => {
    const order = await orderOf(10_000);
    const processing = await ok(await pay(order, 7_000, 'tok_review'), 201);
    expect(processing.status).toBe('processing');
    const refused = await pay(order, 3_001);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error.details[0].amount_due).toBe(3_000);
    const declined = await ok(await pay(order, 3_000, 'tok_declined'), 201);
    expect(declined.status).toBe('failed');
    // The declined one counts no more: 3000 is still due.
    expect((await ok(await pay(order, 3_000), 201)).status).toBe('paid');
    await untilRecorded(order.id, 3_000);
    expect((await orderOf_(order.id)).status).toBe('pending');
  });

  it('refuses a payment in another currency than the order’s', async () => {
    const order = await orderOf(5_000);
    const usd = await pay(order, 5_000, 'tok_ok', 'USD');
    expect(usd.statusCode).toBe(422);
    expect(usd.json().error).toMatchObject({ code: 'PAYMENT_CURRENCY_MISMATCH', details: [{ path: 'body.currency', order_currency: 'PEN' }] });
    expect((await orderOf_(order.id)).amount_paid).toBe(0);
  });

  it('two payments made at once that together exceed the balance: only one is taken', async () => {
    for (let round = 0; round < 3; round++) {
      const order = await orderOf(10_000);
      const charges = double.requests.length;
      const answers = await Promise.all([pay(order, 6_000), pay(order, 6_000), pay(order, 6_000)]);
      expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 422, 422]);
      expect(answers.filter((r) => r.statusCode === 422).map((r) => r.json().error.code)).toEqual(['PAYMENT_EXCEEDS_BALANCE', 'PAYMENT_EXCEEDS_BALANCE']);
      expect(double.requests.length - charges).toBe(1);
      const [{ count }] = await t.app.orm.em.getConnection().execute(`select count(*)::int as count from payments_payment where order_id = ?`, [order.id]);
      expect(count).toBe(1);
    }
  });
});

describe('payment sessions', () => {
  it('are opened for what is still due; none when payments in progress cover the order', async () => {
    const order = await orderOf(8_000);
    await ok(await pay(order, 3_000, 'tok_review'), 201);
    const session = await ok(await store('POST', SESSIONS, { order_id: order.id, gateway: 'acme-form' }), 201);
    expect(session.amount).toBe(5_000);
    const token = form.pay(session.reference);
    const paid = await ok(await store('POST', PAYMENTS, { order_id: order.id, gateway: 'acme-form', amount: 5_000, currency: 'PEN', session_key: session.reference, form_token: token }), 201);
    expect(paid.status).toBe('paid');
    const none = await store('POST', SESSIONS, { order_id: order.id, gateway: 'acme-form' });
    expect(none.statusCode).toBe(409);
    expect(none.json().error).toMatchObject({ code: 'ORDER_NOT_PAYABLE', message: 'Nothing is left to pay: the payments of the order, those in progress included, cover its total' });
  });
});
