import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { definePlugin } from '@qhatu/core';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import payments, { PAYMENT_GATEWAY, type PaymentGateway } from '../src/index.js';
import { caller, createOrder, MISSING, ok, outbox, PAYMENTS, storedStatus, type Caller } from '../src/testing.js';
import { AcmeDouble, acmeGateway, acmePlugin } from './fixtures/acme.js';

/** Acme Pay without its void: a provider that cannot cancel a payment it holds. */
const { cancel: _void, ...rest } = acmeGateway;
const noVoid: PaymentGateway = { ...rest, id: 'acme-novoid', name: 'Acme Hold' };
const noVoidPlugin = definePlugin({ name: 'gateway-acme-novoid', dependsOn: ['payments'], register: (c) => void c.register(PAYMENT_GATEWAY, { useValue: noVoid }) });

const signingKey = 'acme-signing-key';
let double: AcmeDouble;
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let store: Caller;
beforeAll(async () => {
  double = await new AcmeDouble('acme_key').start();
  t = await createTestApp({
    plugins: [media, catalog, customers, inventory, orders, payments, acmePlugin, noVoidPlugin],
    env: { QHATU_GATEWAY_ACME_BASE_URL: double.url, QHATU_GATEWAY_ACME_NOVOID_BASE_URL: double.url },
  });
  shop = await t.createTenant({ currency: 'PEN' });
  other = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
  for (const id of ['acme', 'acme-novoid']) await ok(await admin('PUT', `/api/v1/payments/gateways/${id}`, { credentials: { api_key: 'acme_key', signing_key: signingKey } }), 200);
});
afterAll(async () => {
  await t?.close();
  await double?.close();
});

const pay = (order: { id: string; total: number }, token: string, gateway = 'acme') =>
  store('POST', PAYMENTS, { order_id: order.id, gateway, amount: order.total, currency: 'PEN', acme_token: token, installments: 1 });
const cancel = (id: string, api: Caller = store) => api('POST', `${PAYMENTS}/${id}/cancel`);
const notify = (chargeId: string, eventId: string) => {
  const body = JSON.stringify({ event_id: eventId, charge_id: chargeId });
  return t.request({ method: 'POST', url: `/webhooks/acme/${shop.id}`, headers: { 'content-type': 'application/json', 'x-acme-signature': double.sign(body, signingKey) }, payload: body });
};

describe('POST /payments/:id/cancel', () => {
  it('voids at the provider a payment left at its next action; failed and said so, and the full amount can be paid again at once', async () => {
    const order = await createOrder(admin);
    const left = await ok(await pay(order, 'tok_challenge'), 201);
    expect(left).toMatchObject({ status: 'pending', next_action: { type: 'acme_challenge' } });
    expect((await pay(order, 'tok_ok')).json().error.code).toBe('PAYMENT_EXCEEDS_BALANCE');

    const cancelled = await ok(await cancel(left.id), 200);
    expect(cancelled).toMatchObject({ id: left.id, status: 'failed', next_action: null, failure_reason: 'Cancelled by the shopper: Acme Pay cancelled the payment' });
    expect(double.charges.get(left.provider_payment_id)!.status).toBe('voided');
    expect(double.requests.filter((r) => r.url === `/charges/${left.provider_payment_id}/void`)).toHaveLength(1);
    expect(await outbox(t, 'payments.payment.failed', left.id)).toHaveLength(1);
    expect(await ok(await pay(order, 'tok_ok'), 201)).toMatchObject({ amount: order.total, status: 'paid' });
  });

  it('a payment waiting for the browser with nothing at the provider fails at once; a confirm afterwards is refused', async () => {
    const order = await createOrder(admin);
    const waiting = await ok(await pay(order, 'tok_action'), 201);
    expect(waiting).toMatchObject({ status: 'pending', provider_payment_id: null, next_action: { type: 'acme_verify' } });
    const asked = double.requests.length;
    expect(await ok(await cancel(waiting.id), 200)).toMatchObject({ status: 'failed', failure_reason: 'Cancelled by the shopper before the payment was completed' });
    expect(double.requests.length).toBe(asked);
    const confirm = await store('POST', `${PAYMENTS}/${waiting.id}/confirm`, {});
    expect(confirm.statusCode).toBe(409);
    expect(confirm.json().error.code).toBe('PAYMENT_NOT_PENDING');
    expect(await ok(await pay(order, 'tok_ok'), 201)).toMatchObject({ status: 'paid' });
  });

  it('the shopper finished first: the provider says paid, and the payment is paid', async () => {
    const left = await ok(await pay(await createOrder(admin), 'tok_challenge'), 201);
    double.charges.get(left.provider_payment_id)!.status = 'paid';
    expect(await ok(await cancel(left.id), 200)).toMatchObject({ status: 'paid', failure_reason: null });
    expect(await outbox(t, 'payments.payment.confirmed', left.id)).toHaveLength(1);
  });

  it('a provider that cannot void and still holds the payment open: 409 PAYMENT_STILL_OPEN, nothing changed; once it says the payment failed, the cancel fails it', async () => {
    const held = await ok(await pay(await createOrder(admin), 'tok_challenge', 'acme-novoid'), 201);
    const refused = await cancel(held.id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toMatchObject({ code: 'PAYMENT_STILL_OPEN', details: [{ path: 'params.id', provider_status: 'pending' }] });
    expect(await storedStatus(t, held.id)).toBe('pending');
    Object.assign(double.charges.get(held.provider_payment_id)!, { status: 'declined', message: 'abandoned by the cardholder' });
    expect(await ok(await cancel(held.id), 200)).toMatchObject({ status: 'failed', failure_reason: 'Cancelled by the shopper: Acme Hold says it was not completed (abandoned by the cardholder)' });
  });

  it('refuses what is not pending, unknown, malformed or another store’s, each precisely', async () => {
    const paid = await ok(await pay(await createOrder(admin), 'tok_ok'), 201);
    const settled = await cancel(paid.id);
    expect(settled.statusCode).toBe(409);
    expect(settled.json().error).toMatchObject({ code: 'PAYMENT_NOT_PENDING', details: [{ path: 'params.id', status: 'paid' }] });
    const left = await ok(await pay(await createOrder(admin), 'tok_challenge'), 201);
    expect((await cancel(left.id, caller(t, other, other.storefrontToken))).statusCode).toBe(404);
    expect((await cancel(MISSING)).json().error.code).toBe('PAYMENT_NOT_FOUND');
    expect((await cancel('not-a-uuid')).statusCode).toBe(400);
    expect((await t.request({ method: 'POST', url: `${PAYMENTS}/${left.id}/cancel`, headers: { 'x-tenant-id': shop.id } })).statusCode).toBe(401);
    expect(await storedStatus(t, left.id)).toBe('pending');
    const paths = (await t.request({ method: 'GET', url: '/openapi.json' })).json().paths;
    expect(Object.keys(paths['/api/v1/payments/{id}/cancel'])).toEqual(['post']);
  });

  it('a cancel and the provider’s notification at once end in the provider’s state, every time', async () => {
    for (let round = 0; round < 10; round++) {
      const left = await ok(await pay(await createOrder(admin), 'tok_challenge'), 201);
      const charge = double.charges.get(left.provider_payment_id)!;
      // The shopper finishes the challenge at about the time they give up.
      const finished = new Promise<void>((resolve) => setTimeout(() => resolve(), Math.random() * 6)).then(async () => {
        if (charge.status === 'challenge') charge.status = 'paid';
        return notify(charge.id, `ev_race_${left.id}`);
      });
      const [cancelled] = await Promise.all([cancel(left.id), finished]);
      expect([200, 409]).toContain(cancelled.statusCode);
      const status = await storedStatus(t, left.id);
      expect({ round, status }).toEqual({ round, status: charge.status === 'paid' ? 'paid' : 'failed' });
    }
  });
});

describe('cancelling an order while its payment is in flight', () => {
  it('answers 409 PAYMENT_IN_PROGRESS naming the payment, and changes nothing; once the payment is cancelled, the order can be', async () => {
    const order = await createOrder(admin);
    const left = await ok(await pay(order, 'tok_challenge'), 201);
    const refused = await admin('POST', `/api/v1/orders/${order.id}/cancel`, { reason: 'customer changed their mind' });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().error).toMatchObject({ code: 'PAYMENT_IN_PROGRESS', details: [{ payment_id: left.id, status: 'pending', gateway: 'acme' }] });
    expect((await ok(await admin('GET', `/api/v1/orders/${order.id}`), 200)).status).toBe('pending');
    await ok(await cancel(left.id), 200);
    expect((await ok(await admin('POST', `/api/v1/orders/${order.id}/cancel`, { reason: 'customer changed their mind' }), 200)).status).toBe('cancelled');
  });
});
