import { randomUUID } from 'node:crypto';
import { createApp, loadConfig, TenantContext, type QhatuApp } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import payments, { MoneyReturns } from '../src/index.js';
import { caller, createOrder, ok, outbox, PAYMENTS, until, type Caller } from '../src/testing.js';
import { AcmeDouble, acmePlugin } from './fixtures/acme.js';

/**
 * Money an order must not keep goes back by itself, refunded on the payment's gateway with
 * `payments.payment.returned` and a note on the order: a payment confirmed after its order was
 * cancelled (late), an order cancelled with money captured, an order whose stock cannot be had.
 */
const PLUGINS = [media, catalog, customers, inventory, orders, payments, acmePlugin];
let double: AcmeDouble;
let t: TestApp;
let worker: QhatuApp | undefined;
let shop: TestTenant;
let admin: Caller;
beforeAll(async () => {
  double = await new AcmeDouble('acme_key').start();
  // The API runs no jobs; a worker is started below, as a `qhatu worker` beside it.
  t = await createTestApp({ plugins: PLUGINS, env: { QHATU_GATEWAY_ACME_BASE_URL: double.url } });
  shop = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  await ok(await admin('PUT', '/api/v1/payments/gateways/acme', { credentials: { api_key: 'acme_key', signing_key: 'k' } }), 200);
});
afterAll(async () => {
  await worker?.close();
  await t?.close();
  await double?.close();
});

const pay = (order: { id: string; total: number }) =>
  admin('POST', PAYMENTS, { order_id: order.id, gateway: 'acme', amount: order.total, currency: 'PEN', acme_token: 'tok_ok', installments: 1 });
const orderOf = async (id: string) => ok(await admin('GET', `/api/v1/orders/${id}`), 200);
const paymentOf = async (id: string) => ok(await admin('GET', `${PAYMENTS}/${id}`), 200);
const refundsAt = (chargeId: string) => double.requests.filter((r) => r.url === '/refunds' && r.body.charge === chargeId);

/** Waits for the payment refunded in full, and checks it was sent back once, said so in an event and on the order. */
async function expectReturned(payment: { id: string; order_id: string; amount: number; provider_payment_id: string }, reasons: string[]) {
  await until(async () => (await paymentOf(payment.id)).status === 'refunded');
  const read = await paymentOf(payment.id);
  expect(read).toMatchObject({ refunded_amount: payment.amount, refunds: [{ amount: payment.amount, status: 'refunded', reason: 'other' }] });
  expect(refundsAt(payment.provider_payment_id)).toHaveLength(1);
  const returned = await outbox(t, 'payments.payment.returned', payment.id);
  expect(returned).toHaveLength(1);
  expect(returned[0].data).toMatchObject({ id: payment.id, order_id: payment.order_id, refund_id: read.refunds[0].id, amount: payment.amount, currency: 'PEN', gateway: 'acme' });
  expect(reasons).toContain(returned[0].data.reason);
  const order = await orderOf(payment.order_id);
  expect(order.history.filter((h: { action: string; note: string | null }) => h.action === 'note' && h.note?.includes(`(refund ${read.refunds[0].id})`))).toHaveLength(1);
  return { order, reason: returned[0].data.reason as string };
}

describe('money an order must not keep', () => {
  it('a payment confirmed after its order was cancelled is refunded by itself, once, even when its job runs twice', async () => {
    const order = await createOrder(admin);
    const payment = await ok(await pay(order), 201);
    expect(payment.status).toBe('paid');
    // Cancelled before the order heard of the payment (its job waits for a worker).
    expect((await ok(await admin('POST', `/api/v1/orders/${order.id}/cancel`, { reason: 'changed mind' }), 200)).status).toBe('cancelled');
    worker = await createApp({ plugins: PLUGINS, config: loadConfig(t.app.config.environment), workers: true });
    const { order: after } = await expectReturned(payment, ['late', 'order_cancelled']);
    expect(after).toMatchObject({ status: 'refunded', amount_paid: order.total, amount_refunded: order.total });
    // A job delivered twice sends nothing more.
    const again = await TenantContext.run({ tenantId: shop.id }, () => worker!.container.resolve(MoneyReturns).returnOrder('late', { id: order.id }));
    expect(again).toEqual([]);
    expect(refundsAt(payment.provider_payment_id)).toHaveLength(1);
  });

  it('an order cancelled with its money captured gives it back', async () => {
    const order = await createOrder(admin);
    const payment = await ok(await pay(order), 201);
    await until(async () => (await orderOf(order.id)).amount_paid === order.total);
    await ok(await admin('POST', `/api/v1/orders/${order.id}/cancel`, { reason: 'out of business' }), 200);
    const { reason } = await expectReturned(payment, ['order_cancelled']);
    expect(reason).toBe('order_cancelled');
    expect((await orderOf(order.id)).status).toBe('refunded');
  });

  it("money sent back whose refund's answer was lost, recorded failed from Acme's dashboard, is sent again by itself", async () => {
    worker ??= await createApp({ plugins: PLUGINS, config: loadConfig(t.app.config.environment), workers: true });
    const order = await createOrder(admin);
    const payment = await ok(await pay(order), 201);
    await until(async () => (await orderOf(order.id)).amount_paid === order.total);
    // Acme drops the connection before refunding: the refund stays pending, unconfirmed (decision 0108).
    double.loseRefundAnswers(1, { made: false });
    await ok(await admin('POST', `/api/v1/orders/${order.id}/cancel`, { reason: 'out of business' }), 200);
    let lost: { id: string; amount: number; unconfirmed: boolean } | undefined;
    await until(async () => (lost = (await paymentOf(payment.id)).refunds[0])?.unconfirmed === true);
    expect(double.refunds.filter((r) => r.charge === payment.provider_payment_id)).toEqual([]);
    expect(await paymentOf(payment.id)).toMatchObject({ status: 'paid', refundable_amount: 0 });

    // The store finds no refund on Acme's dashboard and says so: the money goes back again, once.
    await ok(await admin('POST', `${PAYMENTS}/${payment.id}/refunds/${lost!.id}/outcome`, { status: 'failed' }), 200);
    await until(async () => (await paymentOf(payment.id)).status === 'refunded');
    const read = await paymentOf(payment.id);
    expect(read.refunds.map((r: { id: string; status: string; amount: number }) => [r.id === lost!.id, r.status, r.amount]).sort()).toEqual([
      [false, 'refunded', payment.amount],
      [true, 'failed', payment.amount],
    ]);
    expect(double.refunds.filter((r) => r.charge === payment.provider_payment_id)).toHaveLength(1);
    expect(await orderOf(order.id)).toMatchObject({ status: 'refunded', amount_refunded: order.total });
    const returned = await outbox(t, 'payments.payment.returned', payment.id);
    expect(returned.map((e) => e.data.reason)).toEqual(['order_cancelled', 'order_cancelled']);
    expect((await outbox(t, 'payments.payment.return_failed', payment.id)).map((e) => e.data)).toEqual([
      { id: payment.id, order_id: order.id, refund_id: lost!.id, amount: payment.amount, currency: 'PEN', gateway: 'acme', reason: 'order_cancelled' },
    ]);
    // A job delivered again sends nothing more.
    expect(await TenantContext.run({ tenantId: shop.id }, () => worker!.container.resolve(MoneyReturns).returnOrder('order_cancelled', { id: order.id }))).toEqual([]);
    expect(double.refunds.filter((r) => r.charge === payment.provider_payment_id)).toHaveLength(1);
  });

  it('an order whose stock cannot be had is refunded in full, the reason stated', async () => {
    const product = await ok(await admin('POST', '/api/v1/catalog/products', { title: 'Last poncho', variants: [{ title: 'One', sku: `LP-${randomUUID().slice(0, 8)}`, price: 4000 }] }), 201);
    const variant = product.variants[0].id;
    const warehouse = (await ok(await admin('POST', '/api/v1/inventory/warehouses', { name: 'Lima', code: `WH-${randomUUID().slice(0, 6)}` }), 201)).id;
    await ok(await admin('POST', `/api/v1/inventory/warehouses/${warehouse}/stock/adjust`, { variant_id: variant, delta: 1, reason: 'received' }), 200);
    const order = await ok(await admin('POST', '/api/v1/orders', {
      customer_email: 'rosa@example.com', line_items: [{ variant_id: variant, quantity: 2 }],
      shipping_address: { first_name: 'Rosa', last_name: 'Quispe', address1: 'Av. Sol 123', city: 'Cusco', country_code: 'PE', zip: '08002' },
    }), 201);
    const payment = await ok(await pay(order), 201);
    await expectReturned(payment, ['stock_unavailable']);
    const unavailable = await outbox(t, 'orders.order.stock_unavailable', order.id);
    expect(unavailable.length).toBeGreaterThan(0);
    expect((await orderOf(order.id)).status).toBe('refunded');
  });
});
