import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import payments from '../src/index.js';
import { caller, createOrder, MISSING, ok, outbox, PAYMENTS, type Caller } from '../src/testing.js';
import { AcmeDouble, acmePlugin } from './fixtures/acme.js';

/**
 * A refund whose answer was lost on a gateway that cannot repeat a refund (Acme, like Culqi,
 * Izipay, Pay-me and Niubiz): the provider may have refunded, so the refund stays pending with its
 * amount counted until the store records what the provider's dashboard shows (decision 0108).
 */
let double: AcmeDouble;
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
beforeAll(async () => {
  double = await new AcmeDouble('acme_key').start();
  t = await createTestApp({ plugins: [media, catalog, customers, inventory, orders, payments, acmePlugin], env: { QHATU_GATEWAY_ACME_BASE_URL: double.url } });
  shop = await t.createTenant({ currency: 'PEN' });
  other = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  for (const tenant of [shop, other]) await ok(await caller(t, tenant)('PUT', '/api/v1/payments/gateways/acme', { credentials: { api_key: 'acme_key', signing_key: 'k' } }), 200);
});
afterEach(() => double.loseRefundAnswers(0));
afterAll(async () => {
  await t?.close();
  await double?.close();
});

type Paid = { id: string; order_id: string; amount: number; provider_payment_id: string };

async function paid(api = admin): Promise<Paid> {
  const order = await createOrder(api);
  const payment = await ok(await api('POST', PAYMENTS, { order_id: order.id, gateway: 'acme', amount: order.total, currency: 'PEN', acme_token: 'tok_ok', installments: 1 }), 201);
  expect(payment.status).toBe('paid');
  return payment;
}

/** A refund of `amount` whose answer Acme loses after refunding: answered 201, pending and unconfirmed. */
async function lostRefund(payment: Paid, amount = 0) {
  double.loseRefundAnswers(1);
  const res = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount, reason: 'requested_by_customer' });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; amount: number; status: string; unconfirmed: boolean; failure_reason: string | null };
}

const outcome = (payment: { id: string }, refund: { id: string }, body: unknown, api = admin) => api('POST', `${PAYMENTS}/${payment.id}/refunds/${refund.id}/outcome`, body);
const refundsAt = (payment: Paid) => double.refunds.filter((r) => r.charge === payment.provider_payment_id);
const storedRefund = async (id: string) =>
  (await t.app.orm.em.getConnection().execute(`select status, provider_refund_id, failure_reason, updated_at from payments_refund where id = ?`, [id]))[0];

describe('a refund whose answer was lost, on a gateway that cannot repeat it', () => {
  it('stays pending and unconfirmed, its amount counted: a second refund is refused and nothing is sent again', async () => {
    const payment = await paid();
    const refund = await lostRefund(payment);
    expect(refund).toMatchObject({ amount: payment.amount, status: 'pending', provider_refund_id: null, unconfirmed: true });
    expect(refund.failure_reason).toMatch(/answer to the refund was lost/);
    expect(refund.failure_reason).toContain("provider's dashboard");
    expect(refund.failure_reason).toContain(`/api/v1/payments/${payment.id}/refunds/${refund.id}/outcome`);
    // Acme did refund: the customer has the money back once.
    expect(refundsAt(payment)).toHaveLength(1);

    for (const amount of [0, payment.amount, 1]) {
      const again = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount });
      expect(again.statusCode).toBe(409);
      expect(again.json().error).toMatchObject({ code: 'REFUND_EXCEEDS_AMOUNT', details: [{ path: 'body.amount', refundable: 0 }] });
    }
    // Reading the payment shows it, and asks the provider nothing (a repeat could refund twice).
    const read = await ok(await admin('GET', `${PAYMENTS}/${payment.id}`), 200);
    expect(read).toMatchObject({ status: 'paid', refunded_amount: 0, refundable_amount: 0, refunds: [{ id: refund.id, status: 'pending', unconfirmed: true, failure_reason: refund.failure_reason }] });
    const listed = await ok(await admin('GET', `${PAYMENTS}?filter[order_id]=${payment.order_id}`), 200);
    expect(listed[0].refunds).toEqual([expect.objectContaining({ id: refund.id, unconfirmed: true })]);
    expect(refundsAt(payment)).toHaveLength(1);
    expect(await outbox(t, 'payments.refund.failed', refund.id)).toEqual([]);
  });

  it("recorded failed from the provider's dashboard: the refund fails and its amount is free for a new refund", async () => {
    const payment = await paid();
    const refund = await lostRefund(payment);
    const res = await outcome(payment, refund, { status: 'failed' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ id: refund.id, status: 'failed', unconfirmed: false, provider_refund_id: null, failure_reason: expect.stringContaining('did not make this refund') });
    expect(await outbox(t, 'payments.refund.failed', refund.id)).toHaveLength(1);
    // Its amount is free again, as the payment's answer says.
    expect(await ok(await admin('GET', `${PAYMENTS}/${payment.id}`), 200)).toMatchObject({ status: 'paid', refunded_amount: 0, refundable_amount: payment.amount });

    const again = await ok(await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 }), 201);
    expect(again).toMatchObject({ amount: payment.amount, status: 'refunded', unconfirmed: false });
    expect(await ok(await admin('GET', `${PAYMENTS}/${payment.id}`), 200)).toMatchObject({ status: 'refunded', refunded_amount: payment.amount, refundable_amount: 0 });
  });

  it('recorded refunded with the provider id: the payment, the order and the events move once, as for an answered refund', async () => {
    const payment = await paid();
    const refund = await lostRefund(payment, 1000);
    const [made] = refundsAt(payment);
    const res = await outcome(payment, refund, { status: 'refunded', provider_refund_id: made.id });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ id: refund.id, amount: 1000, status: 'refunded', provider_refund_id: made.id, failure_reason: null, unconfirmed: false });
    expect(await ok(await admin('GET', `${PAYMENTS}/${payment.id}`), 200)).toMatchObject({ status: 'partially_refunded', refunded_amount: 1000 });
    expect(await ok(await admin('GET', `/api/v1/orders/${payment.order_id}`), 200)).toMatchObject({ amount_refunded: 1000 });
    expect(await outbox(t, 'payments.refund.refunded', refund.id)).toHaveLength(1);
    // Its provider id is indexed for the provider's notifications, as an answered refund's.
    const [ref] = await t.app.orm.em.getConnection().execute(`select tenant_id from payments_provider_ref where kind = 'refund' and reference = ?`, [made.id]);
    expect(ref).toEqual({ tenant_id: shop.id });

    // The same body again: already resolved, nothing moves twice.
    const replay = await outcome(payment, refund, { status: 'refunded', provider_refund_id: made.id });
    expect(replay.statusCode).toBe(409);
    expect(replay.json().error).toMatchObject({ code: 'INVALID_STATE_TRANSITION', details: [{ path: 'params.refund_id', status: 'refunded' }] });
    expect(await ok(await admin('GET', `${PAYMENTS}/${payment.id}`), 200)).toMatchObject({ status: 'partially_refunded', refunded_amount: 1000 });
    expect(await outbox(t, 'payments.refund.refunded', refund.id)).toHaveLength(1);

    // Another lost refund cannot take the provider id of this one.
    const second = await lostRefund(payment, 500);
    // The unconfirmed one holds its 500 as well as the refunded 1000.
    expect(await ok(await admin('GET', `${PAYMENTS}/${payment.id}`), 200)).toMatchObject({ refunded_amount: 1000, refundable_amount: payment.amount - 1500 });
    const taken = await outcome(payment, second, { status: 'refunded', provider_refund_id: made.id });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error).toMatchObject({ code: 'PROVIDER_REFUND_ID_USED', details: [{ path: 'body.provider_refund_id' }] });
    expect(await storedRefund(second.id)).toMatchObject({ status: 'pending', provider_refund_id: null });
    // Without one, it is refunded all the same; the rest then goes back in full.
    expect(await ok(await outcome(payment, second, { status: 'refunded' }), 200)).toMatchObject({ status: 'refunded', provider_refund_id: null });
    expect(await ok(await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 }), 201)).toMatchObject({ amount: payment.amount - 1500, status: 'refunded' });
    expect(await ok(await admin('GET', `${PAYMENTS}/${payment.id}`), 200)).toMatchObject({ status: 'refunded', refunded_amount: payment.amount });
  });

  it('is refused for a refund that is not unconfirmed, out of the store, with a bad body, and to a storefront key; nothing is written', async () => {
    const payment = await paid();
    const answered = await ok(await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 1000 }), 201);
    expect(answered).toMatchObject({ status: 'refunded', unconfirmed: false });
    const notLost = await outcome(payment, answered, { status: 'failed' });
    expect(notLost.statusCode).toBe(409);
    expect(notLost.json().error).toMatchObject({ code: 'INVALID_STATE_TRANSITION', details: [{ path: 'params.refund_id', status: 'refunded' }] });

    const refund = await lostRefund(payment, 1000);
    const before = await storedRefund(refund.id);
    const theirs = await paid(caller(t, other));
    const refused: Array<[Awaited<ReturnType<typeof outcome>>, number, string]> = [
      // Another store's admin sees neither the payment nor the refund.
      [await outcome(payment, refund, { status: 'failed' }, caller(t, other)), 404, 'PAYMENT_NOT_FOUND'],
      // A refund of another payment, or none, under this payment.
      [await outcome(payment, { id: MISSING }, { status: 'failed' }), 404, 'REFUND_NOT_FOUND'],
      [await outcome(theirs, refund, { status: 'failed' }), 404, 'PAYMENT_NOT_FOUND'],
      [await outcome({ id: 'not-a-uuid' }, refund, { status: 'failed' }), 400, 'VALIDATION_ERROR'],
      [await outcome(payment, refund, { status: 'done' }), 400, 'VALIDATION_ERROR'],
      [await outcome(payment, refund, { status: 'refunded', provider_refund_id: 'x'.repeat(201) }), 400, 'VALIDATION_ERROR'],
      [await outcome(payment, refund, { status: 'refunded', provider_refund_id: '' }), 400, 'VALIDATION_ERROR'],
      [await outcome(payment, refund, { status: 'refunded', amount: 1 }), 400, 'VALIDATION_ERROR'],
      [await outcome(payment, refund, {}), 400, 'VALIDATION_ERROR'],
      [await outcome(payment, refund, { status: 'failed' }, caller(t, shop, shop.storefrontToken)), 403, 'FORBIDDEN'],
    ];
    for (const [res, status, code] of refused) {
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json().error.code).toBe(code);
    }
    const bad = refused[5][0].json().error;
    expect(bad.details).toEqual([expect.objectContaining({ path: 'body.provider_refund_id' })]);
    const anonymous = await t.request({ method: 'POST', url: `${PAYMENTS}/${payment.id}/refunds/${refund.id}/outcome`, headers: { 'x-tenant-id': shop.id }, payload: { status: 'failed' } });
    expect(anonymous.statusCode).toBe(401);

    expect(await storedRefund(refund.id)).toEqual(before);
    expect(await ok(await admin('GET', `${PAYMENTS}/${payment.id}`), 200)).toMatchObject({ status: 'partially_refunded', refunded_amount: 1000 });
    // Still unconfirmed, it takes its outcome.
    expect(await ok(await outcome(payment, refund, { status: 'failed' }), 200)).toMatchObject({ status: 'failed' });
  });

  it('is documented in /openapi.json', async () => {
    const spec = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    const route = spec.paths['/api/v1/payments/{id}/refunds/{refund_id}/outcome'];
    expect(route?.post?.summary).toMatch(/unconfirmed refund/);
    expect(Object.keys(route.post.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '409']));
    expect(spec.components.schemas.PaymentRefund.required).toContain('unconfirmed');
  });
});
