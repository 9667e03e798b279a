import { randomBytes } from 'node:crypto';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import stripe from '@qhatu/plugin-gateway-stripe';
import { StripeDouble } from '@qhatu/plugin-gateway-stripe/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  caller, createCustomer, createProduct, creditApp, CREDIT, enableStoreCredit, grant, ledgerOf, MISSING, PAYMENTS, payWithCredit, placeOrder, until, type Caller,
} from './helpers.js';

let t: TestApp;
let double: StripeDouble;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let variantId: string;
const stripeKeys = { secret_key: `sk_test_${randomBytes(8).toString('hex')}`, webhook_secret: `whsec_${randomBytes(18).toString('base64')}`, publishable_key: 'pk_test_x' };

beforeAll(async () => {
  double = await new StripeDouble(new Set([stripeKeys.secret_key])).start();
  t = await creditApp({ plugins: [stripe], workers: true, env: { QHATU_GATEWAY_STRIPE_BASE_URL: double.url } });
  shop = await t.createTenant({ currency: 'USD' });
  other = await t.createTenant({ currency: 'USD' });
  admin = caller(t, shop);
  await enableStoreCredit(admin);
  await enableStoreCredit(caller(t, other));
  expect((await admin('PUT', '/api/v1/payments/gateways/stripe', { enabled: true, credentials: stripeKeys })).statusCode).toBe(200);
  // 2 × 1000 + 500 shipping: orders of 2500.
  variantId = await createProduct(admin, 1000);
});
afterAll(async () => {
  await t?.close();
  await double?.close();
});

const checkoutOf = async (id: string) => (await admin('GET', `/api/v1/checkout/checkouts/${id}`)).json().data;
const orderOf = async (id: string) => (await admin('GET', `/api/v1/orders/${id}`)).json().data;

describe('paying with store credit', () => {
  it("pays a checkout's whole order from the balance: one debit, the order paid, the checkout completed", async () => {
    const rosa = await createCustomer(t, shop);
    await grant(admin, rosa.id, 4000);
    const { checkoutId, order } = await placeOrder(rosa.api, variantId, 2);
    expect(order.total).toBe(2500);
    const res = await payWithCredit(rosa.api, order);
    expect(res.statusCode, res.body).toBe(201);
    const payment = res.json().data;
    expect(payment).toMatchObject({ gateway: 'store-credit', status: 'paid', amount: 2500, method: 'store-credit', failure_reason: null });
    const ledger = await ledgerOf(t, shop.id, rosa.id);
    expect(ledger).toMatchObject({ balance: 1500, sum: 1500 });
    expect(ledger.entries.at(-1)).toMatchObject({ kind: 'spend', amount: -2500, balanceAfter: 1500, paymentId: payment.id });
    await until(async () => (await checkoutOf(checkoutId)).status === 'completed');
    expect(await orderOf(order.id)).toMatchObject({ status: 'paid', amount_paid: 2500 });
    const mine = await rosa.api('GET', `${CREDIT}/me/entries?limit=1`);
    expect(mine.json().data[0]).toMatchObject({ kind: 'spend', amount: -2500, order_id: order.id, payment_id: payment.id, source: { type: 'payment', id: payment.id } });
  });

  it('pays part with credit and the rest with a card: the two payments sum to the total and complete the checkout', async () => {
    const rosa = await createCustomer(t, shop);
    await grant(admin, rosa.id, 1000);
    const { checkoutId, order } = await placeOrder(rosa.api, variantId, 2);
    const credit = await payWithCredit(rosa.api, order, 1000);
    expect(credit.json().data).toMatchObject({ status: 'paid', amount: 1000 });
    // Part paid: the checkout still waits, the order shows what came in.
    expect((await checkoutOf(checkoutId)).status).toBe('payment_pending');
    const card = await rosa.api('POST', PAYMENTS, { order_id: order.id, gateway: 'stripe', amount: 1500, currency: 'USD', payment_method_id: 'pm_card_visa' });
    expect(card.json().data).toMatchObject({ status: 'paid', amount: 1500 });
    await until(async () => (await checkoutOf(checkoutId)).status === 'completed');
    expect(await orderOf(order.id)).toMatchObject({ status: 'paid', amount_paid: 2500 });
    expect(await ledgerOf(t, shop.id, rosa.id)).toMatchObject({ balance: 0, sum: 0 });
  });

  it('records a payment above the balance as failed with the reason, takes nothing, and the card then pays', async () => {
    const rosa = await createCustomer(t, shop);
    await grant(admin, rosa.id, 2499);
    const { order } = await placeOrder(rosa.api, variantId, 2);
    const res = await payWithCredit(rosa.api, order);
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('2499') });
    expect(await ledgerOf(t, shop.id, rosa.id)).toMatchObject({ balance: 2499, sum: 2499 });
    // A failed payment no longer counts against the order: the card pays all of it.
    const card = await rosa.api('POST', PAYMENTS, { order_id: order.id, gateway: 'stripe', amount: 2500, currency: 'USD', payment_method_id: 'pm_card_visa' });
    expect(card.json().data.status).toBe('paid');
  });

  it("pays only from the balance in the order's currency: credit in PEN never pays a USD order", async () => {
    const rosa = await createCustomer(t, shop);
    await grant(admin, rosa.id, 9000, 'PEN');
    const { order } = await placeOrder(rosa.api, variantId, 2);
    expect(order.currency).toBe('USD');
    const balances = async () => (await admin('GET', `${CREDIT}/customers/${rosa.id}`)).json().data.balances.map((b: { currency: string; balance: number }) => [b.currency, b.balance]);

    // The USD balance (none) is what pays a USD order: failed, nothing taken from the PEN one.
    const res = await payWithCredit(rosa.api, order);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('is 0 USD') });
    // Asking to pay it in PEN is the payments plugin's 422: a payment is in its order's currency.
    const inPen = await rosa.api('POST', PAYMENTS, { order_id: order.id, gateway: 'store-credit', amount: order.total, currency: 'PEN' });
    expect(inPen.statusCode, inPen.body).toBe(422);
    expect(inPen.json().error.code).toBe('PAYMENT_CURRENCY_MISMATCH');
    expect(await balances()).toEqual([['PEN', 9000]]);

    // Credit in USD pays it; the PEN balance stays whole.
    await grant(admin, rosa.id, 3000, 'USD');
    expect((await payWithCredit(rosa.api, order)).json().data).toMatchObject({ status: 'paid', amount: 2500 });
    expect(await balances()).toEqual([['PEN', 9000], ['USD', 500]]);
    const spends = (await admin('GET', `${CREDIT}/customers/${rosa.id}/entries?filter[kind]=spend`)).json().data;
    expect(spends).toEqual([expect.objectContaining({ currency: 'USD', amount: -2500, balance_after: 500, order_id: order.id })]);
  });

  it("spends only the order's customer's credit, and only for the customer or staff allowed to", async () => {
    const rosa = await createCustomer(t, shop);
    const thief = await createCustomer(t, shop);
    await grant(admin, rosa.id, 9000);
    await grant(admin, thief.id, 9000);
    const { order } = await placeOrder(rosa.api, variantId, 2);
    // A storefront key is in every browser: it never spends anyone's credit.
    const byKey = await payWithCredit(caller(t, shop, shop.storefrontToken), order);
    expect(byKey.json().data).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('storefront key') });
    // Another customer cannot pay (or drain) Rosa's order with anyone's credit.
    const byOther = await payWithCredit(thief.api, order);
    expect(byOther.json().data).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('own orders') });
    // A staff member needs store-credit.adjust.
    const role = await admin('POST', '/api/v1/roles', { name: `Cashier ${randomBytes(3).toString('hex')}`, permissions: ['orders.read'] });
    const staff = await admin('POST', '/api/v1/staff', { email: `cashier-${randomBytes(3).toString('hex')}@example.com`, first_name: 'Cashier', password: 'correct horse battery', role_id: role.json().data.id });
    expect(staff.statusCode, staff.body).toBe(201);
    const login = await t.request({ method: 'POST', url: '/api/v1/auth/staff/login', headers: { 'x-tenant-id': shop.id }, payload: { email: staff.json().data.email, password: 'correct horse battery' } });
    const byStaff = await payWithCredit(caller(t, shop, login.json().data.token), order);
    expect(byStaff.json().data).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('store-credit.adjust') });
    expect(await ledgerOf(t, shop.id, rosa.id)).toMatchObject({ balance: 9000 });
    expect(await ledgerOf(t, shop.id, thief.id)).toMatchObject({ balance: 9000 });
    // The store's admin (a phone order) may.
    expect((await payWithCredit(admin, order)).json().data.status).toBe('paid');
    expect(await ledgerOf(t, shop.id, rosa.id)).toMatchObject({ balance: 6500, sum: 6500 });
  });

  it("refuses another store's order, and an order of no customer is failed without a debit", async () => {
    const rosa = await createCustomer(t, shop);
    await grant(admin, rosa.id, 9000);
    const { order } = await placeOrder(rosa.api, variantId, 2);
    const theirs = await payWithCredit(caller(t, other), order);
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json().error.code).toBe('ORDER_NOT_FOUND');
    const missing = await payWithCredit(rosa.api, { ...order, id: MISSING });
    expect(missing.json().error.code).toBe('ORDER_NOT_FOUND');
    const anonymous = await admin('POST', '/api/v1/orders', {
      customer_email: 'guest@example.com', line_items: [{ variant_id: variantId, quantity: 1 }],
      shipping_address: { first_name: 'G', last_name: 'Uest', address1: 'Jr. Lima 1', city: 'Lima', country_code: 'PE', zip: '15001' },
    });
    const guest = await payWithCredit(admin, anonymous.json().data);
    expect(guest.json().data).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('no customer') });
    expect(await ledgerOf(t, shop.id, rosa.id)).toMatchObject({ balance: 9000, sum: 9000 });
    // Switched off, the gateway takes no new payment.
    expect((await admin('PUT', '/api/v1/payments/gateways/store-credit', { enabled: false })).statusCode).toBe(200);
    const off = await payWithCredit(rosa.api, order);
    expect(off.statusCode).toBe(422);
    expect(off.json().error.code).toBe('GATEWAY_NOT_CONFIGURED');
    await enableStoreCredit(admin);
  });

  it('gives a refund back to the balance, once per refund, never above what was paid', async () => {
    const rosa = await createCustomer(t, shop);
    await grant(admin, rosa.id, 3000);
    const { order } = await placeOrder(rosa.api, variantId, 2);
    const payment = (await payWithCredit(rosa.api, order)).json().data;
    const part = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 1000, reason: 'requested_by_customer' });
    expect(part.statusCode, part.body).toBe(201);
    expect(part.json().data).toMatchObject({ status: 'refunded', amount: 1000 });
    expect(await ledgerOf(t, shop.id, rosa.id)).toMatchObject({ balance: 1500, sum: 1500 });
    const rest = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 });
    expect(rest.json().data).toMatchObject({ status: 'refunded', amount: 1500 });
    const ledger = await ledgerOf(t, shop.id, rosa.id);
    expect(ledger).toMatchObject({ balance: 3000, sum: 3000 });
    expect(ledger.entries.filter((e) => e.kind === 'restore').map((e) => e.amount)).toEqual([1000, 1500]);
    const beyond = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 1 });
    expect(beyond.statusCode).toBe(409);
    expect(await ledgerOf(t, shop.id, rosa.id)).toMatchObject({ balance: 3000 });
  });
});

describe('thirty spends of one balance at once', () => {
  it('never goes below zero and counts each cent once', async () => {
    const rosa = await createCustomer(t, shop);
    const cheap = await createProduct(admin, 50);
    // Thirty orders of 100 (50 + 50 shipping), placed one after the other; a balance of 1000 pays ten.
    const orders = [];
    for (let i = 0; i < 30; i++) orders.push((await placeOrder(rosa.api, cheap, 1, 50)).order);
    await grant(admin, rosa.id, 1000);
    const answers = await Promise.all(orders.map((order) => payWithCredit(rosa.api, order)));
    for (const res of answers) expect(res.statusCode, res.body).toBe(201);
    const paid = answers.filter((r) => r.json().data.status === 'paid').map((r) => r.json().data.id);
    const failed = answers.filter((r) => r.json().data.status === 'failed');
    expect(paid).toHaveLength(10);
    expect(failed).toHaveLength(20);
    for (const res of failed) expect(res.json().data.failure_reason).toMatch(/store credit is \d+ USD/);

    const ledger = await ledgerOf(t, shop.id, rosa.id);
    expect(ledger).toMatchObject({ balance: 0, sum: 0 });
    const spends = ledger.entries.filter((e) => e.kind === 'spend');
    expect(spends).toHaveLength(10);
    expect(new Set(spends.map((e) => e.paymentId))).toEqual(new Set(paid));
    // Each debit saw the one before it: the balances left run 900, 800, ... 0 exactly once each.
    expect(spends.map((e) => e.balanceAfter).sort((a, b) => b - a)).toEqual([900, 800, 700, 600, 500, 400, 300, 200, 100, 0]);
  }, 120_000);
});
