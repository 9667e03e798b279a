import type { TestApp } from '@qhatu/core/testing';
import { createOrder, outbox, PAYMENTS, type Caller } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayPalAccount, PayPalDouble } from '../src/testing.js';
import { configure, pay, paypalStore, type PayPalStore } from './helpers.js';

// Refunds go to the PayPal order's capture: POST /v2/payments/captures/{id}/refund, read back with
// GET /v2/payments/refunds/{id} while PayPal leaves them pending.
let w: PayPalStore;
let double: PayPalDouble;
let t: TestApp;
let admin: Caller;
let account: PayPalAccount;
beforeAll(async () => {
  w = await paypalStore();
  ({ double, t, admin, account } = w);
  await configure(admin, account);
});
afterAll(() => w?.close());

const sent = (since: number) => double.requests.slice(since);

describe('POST /payments/:id/refund on PayPal', () => {
  async function paid(value = '100.00') {
    const order = await createOrder(admin, 2500, 4);
    const paypalOrder = double.approve(double.clientOrder(value, 'USD').id);
    const payment = (await pay(admin, order, paypalOrder.id)).json().data;
    expect(payment.status).toBe('paid');
    return payment as { id: string; amount: number; provider_payment_id: string };
  }
  const read = async (id: string) => (await admin('GET', `${PAYMENTS}/${id}`)).json().data;
  const captureOf = (orderId: string) => double.orders.get(orderId)!.order.purchase_units[0].payments!.captures[0];

  it('partial, then the rest with 0: the capture is refunded on PayPal, partially_refunded → refunded', async () => {
    const payment = await paid();
    const capture = captureOf(payment.provider_payment_id);
    const first = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 3000, reason: 'requested_by_customer' });
    expect(first.statusCode).toBe(201);
    expect(first.json().data).toMatchObject({ amount: 3000, status: 'refunded', provider_refund_id: expect.stringMatching(/^[A-Z0-9]{17}$/) });
    const refundCall = double.requests.filter((r) => r.path.endsWith('/refund')).at(-1)!;
    expect(refundCall).toMatchObject({ path: `/v2/payments/captures/${capture.id}/refund`, requestId: `qhatu-refund-${first.json().data.id}`, contentType: 'application/json' });
    expect(refundCall.json).toEqual({ amount: { value: '30.00', currency_code: 'USD' }, note_to_payer: 'Refund at your request' });
    expect(await read(payment.id)).toMatchObject({ status: 'partially_refunded', refunded_amount: 3000 });
    expect(captureOf(payment.provider_payment_id).status).toBe('PARTIALLY_REFUNDED');

    const rest = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0, reason: 'other' });
    expect(rest.json().data).toMatchObject({ amount: 7000, status: 'refunded' });
    expect(double.requests.filter((r) => r.path.endsWith('/refund')).at(-1)!.json).toEqual({ amount: { value: '70.00', currency_code: 'USD' } });
    expect(await read(payment.id)).toMatchObject({ status: 'refunded', refunded_amount: 10000 });
    expect(captureOf(payment.provider_payment_id).status).toBe('REFUNDED');
    expect(await outbox(t, 'payments.refund.refunded', payment.id)).toHaveLength(2);
    expect((await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 })).statusCode).toBe(409);
  });

  it('409 over the refundable amount; PayPal’s REFUND_AMOUNT_EXCEEDED is a failed refund that frees its amount', async () => {
    const payment = await paid();
    const over = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 10001 });
    expect(over.statusCode).toBe(409);
    expect(over.json().error.code).toBe('REFUND_EXCEEDS_AMOUNT');
    // Refunded in PayPal's dashboard behind Qhatu's back: PayPal refuses the next one.
    double.refunds.set('DASHBOARD', { refund: { id: 'DASHBOARD', status: 'COMPLETED', amount: { currency_code: 'USD', value: '95.00' }, create_time: '', update_time: '', links: [] }, owner: account.client_id, orderId: payment.provider_payment_id });
    double.orders.get(payment.provider_payment_id)!.order.purchase_units[0].payments!.refunds.push(double.refunds.get('DASHBOARD')!.refund);
    const res = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 1000 });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({
      status: 'failed', provider_refund_id: null,
      failure_reason: 'UNPROCESSABLE_ENTITY: REFUND_AMOUNT_EXCEEDED — The refund amount must be less than or equal to the capture amount that has not yet been refunded.',
    });
    expect(await read(payment.id)).toMatchObject({ status: 'paid', refunded_amount: 0 });
    expect(await outbox(t, 'payments.refund.failed', res.json().data.id)).toHaveLength(1);
    expect((await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 500 })).json().data.status).toBe('refunded');
  });

  it('concurrent refunds never exceed the payment, in Qhatu or at PayPal', async () => {
    const payment = await paid();
    const results = await Promise.all(Array.from({ length: 6 }, () => admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 3000 })));
    const created = results.filter((r) => r.statusCode === 201).map((r) => r.json().data);
    expect(results.every((r) => r.statusCode === 201 || r.statusCode === 409)).toBe(true);
    const refunded = created.filter((r) => r.status === 'refunded').reduce((sum, r) => sum + r.amount, 0);
    expect(refunded).toBeLessThanOrEqual(10_000);
    expect(created.filter((r) => r.status === 'refunded')).toHaveLength(3);
    const atPayPal = double.orders.get(payment.provider_payment_id)!.order.purchase_units[0].payments!.refunds
      .filter((r) => r.status === 'COMPLETED').reduce((sum, r) => sum + Math.round(Number(r.amount.value) * 100), 0);
    expect(atPayPal).toBe(refunded);
    expect(await read(payment.id)).toMatchObject({ status: 'partially_refunded', refunded_amount: 9000 });
  });

  it('a refund PayPal leaves PENDING is processing; reading the payment re-reads it until PayPal settles it', async () => {
    const payment = await paid();
    double.refundOutcome = 'PENDING';
    try {
      const refund = (await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 2500, reason: 'duplicate' })).json().data;
      expect(refund).toMatchObject({ status: 'processing', provider_refund_id: expect.any(String) });
      expect(double.requests.filter((r) => r.path.endsWith('/refund')).at(-1)!.json.note_to_payer).toBe('Refund of a duplicate payment');
      expect(await read(payment.id)).toMatchObject({ status: 'paid', refunded_amount: 0, refunds: [{ status: 'processing' }] });
      double.settleRefund(refund.provider_refund_id, 'COMPLETED');
      const before = double.requests.length;
      expect(await read(payment.id)).toMatchObject({ status: 'partially_refunded', refunded_amount: 2500, refunds: [{ status: 'refunded' }] });
      expect(sent(before).map((r) => `${r.method} ${r.path}`)).toContain(`GET /v2/payments/refunds/${refund.provider_refund_id}`);
      const failing = (await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 2500 })).json().data;
      double.settleRefund(failing.provider_refund_id, 'FAILED');
      const after = await read(payment.id);
      expect(after).toMatchObject({ status: 'partially_refunded', refunded_amount: 2500 });
      expect(after.refunds[1]).toMatchObject({ status: 'failed', failure_reason: `PayPal failed refund ${failing.provider_refund_id}: ECHECK` });
    } finally {
      double.refundOutcome = 'COMPLETED';
    }
  });
});
