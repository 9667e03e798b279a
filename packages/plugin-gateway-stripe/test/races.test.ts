import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import payments from '@qhatu/plugin-payments';
import { caller, createOrder, PAYMENTS, until, type Caller } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import stripe from '../src/index.js';
import { StripeDouble } from '../src/testing.js';
import { BASE_URL_VARIABLE, configure, newAccount } from './helpers.js';

/** Thirty callers at once, on Stripe: the money of an order never exceeds it, and a cancelled order keeps none. */
const account = newAccount();
let double: StripeDouble;
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let store: Caller;
beforeAll(async () => {
  double = await new StripeDouble(new Set([account.secret_key])).start();
  t = await createTestApp({ plugins: [media, catalog, customers, inventory, orders, payments, stripe], workers: true, env: { [BASE_URL_VARIABLE]: double.url } });
  shop = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
  await configure(admin, account);
});
afterAll(async () => {
  await t?.close();
  await double?.close();
});

const pay = (order: { id: string; currency: string }, amount: number) =>
  store('POST', PAYMENTS, { order_id: order.id, gateway: 'stripe', amount, currency: order.currency, payment_method_id: 'pm_card_visa' });
const paymentsOf = async (orderId: string) => (await admin('GET', `${PAYMENTS}?filter[order_id]=${orderId}&limit=100`)).json().data as Array<{ id: string; status: string; amount: number; refunded_amount: number; provider_payment_id: string }>;
const intentsOf = (orderId: string) => [...double.intents.values()].filter((i) => i.metadata.order_id === orderId && i.status === 'succeeded');

describe('thirty callers at once', () => {
  it('thirty payments of one order never take more than its total together', async () => {
    const order = await createOrder(admin, 2500, 2);
    const part = order.total / 10;
    const answers = await Promise.all(Array.from({ length: 30 }, () => pay(order, part)));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([...Array(10).fill(201), ...Array(20).fill(422)]);
    for (const refused of answers.filter((a) => a.statusCode === 422)) expect(refused.json().error.code).toBe('PAYMENT_EXCEEDS_BALANCE');
    const taken = (await paymentsOf(order.id)).filter((p) => p.status !== 'failed');
    expect(taken.reduce((sum, p) => sum + p.amount, 0)).toBe(order.total);
    expect(intentsOf(order.id).reduce((sum, i) => sum + i.amount, 0)).toBe(order.total);
    await until(async () => (await admin('GET', `/api/v1/orders/${order.id}`)).json().data.amount_paid === order.total);
  });

  it('thirty payments each racing a cancel of its order: no captured money stays on a cancelled order', async () => {
    const placed = await Promise.all(Array.from({ length: 30 }, () => createOrder(admin, 1500, 1)));
    const raced = await Promise.all(placed.map((order) => Promise.all([pay(order, order.total), admin('POST', `/api/v1/orders/${order.id}/cancel`, { reason: 'changed mind' })])));
    for (const [payment, cancel] of raced) {
      expect([201, 409]).toContain(payment.statusCode);
      if (payment.statusCode === 409) expect(payment.json().error.code).toBe('ORDER_NOT_PAYABLE');
      expect([200, 409]).toContain(cancel.statusCode);
      if (cancel.statusCode === 409) expect(cancel.json().error.code).toBe('PAYMENT_IN_PROGRESS');
    }
    const states = async () => Promise.all(placed.map(async (order) => ({ order: (await admin('GET', `/api/v1/orders/${order.id}`)).json().data, payments: await paymentsOf(order.id) })));
    // Everything captured on a cancelled order goes back: wait for the refunds the jobs send.
    const keeps = (s: { order: { status: string }; payments: Array<{ status: string }> }) =>
      ['cancelled', 'refunded'].includes(s.order.status) && s.payments.some((p) => p.status === 'paid' || p.status === 'partially_refunded');
    await until(async () => !(await states()).some(keeps), 30_000);
    for (const [n, s] of (await states()).entries()) {
      const order = placed[n];
      if (['cancelled', 'refunded'].includes(s.order.status)) {
        const given = intentsOf(order.id).map((i) => i.id);
        const refunded = [...double.refunds.values()].filter((r) => given.includes(r.payment_intent) && r.status === 'succeeded').reduce((sum, r) => sum + r.amount, 0);
        expect({ order: n, kept: intentsOf(order.id).reduce((sum, i) => sum + i.amount, 0) - refunded }).toEqual({ order: n, kept: 0 });
      } else {
        // The cancel was refused while the payment was in flight: the order took it.
        expect(s.payments.filter((p) => p.status === 'paid')).toHaveLength(1);
      }
    }
  }, 60_000);
});
