import { fullPath, ok, outbox, PAYMENTS, SESSIONS, type FullPath } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import paypal from '../src/index.js';
import { PayPalDouble, type PayPalAccount } from '../src/testing.js';
import { BASE_URL_VARIABLE, configure, newAccount, notify, openSession } from './helpers.js';

// cart → checkout → order → payment session (a PayPal order) → the buyer approves → payment
// (captured at once, or by polling, or on PayPal's webhook) → order paid (stock reserved) →
// checkout completed → refund → order refunded; workers run the event jobs, as in production.
let account: PayPalAccount;
let s: FullPath<PayPalDouble>;
beforeAll(async () => {
  account = newAccount();
  // PayPal does not take soles: a store in dollars.
  s = await fullPath(paypal, BASE_URL_VARIABLE, await new PayPalDouble([account]).start(), (a) => configure(a, account), { currency: 'USD' });
});
afterAll(() => s?.close());

const payWith = (c: { order_id: string; total: number; currency: string }, paypalOrderId: string) =>
  s.store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'paypal', amount: c.total, currency: c.currency, paypal_order_id: paypalOrderId });

describe('the whole path on PayPal', () => {
  it('cart → checkout → session → approval → payment → order paid → checkout completed → refund → order refunded', async () => {
    const { checkout: c, variant } = await s.awaitingPayment();
    const session = await ok(await openSession(s.store, { id: c.order_id }), 201);
    expect(session).toMatchObject({ amount: 9500, currency: 'USD', client: { paypal_order_id: session.reference, client_id: account.client_id, currency: 'USD' } });
    expect(s.double.orders.get(session.reference)!.order.purchase_units[0]).toMatchObject({ reference_id: c.order_id, amount: { currency_code: 'USD', value: '95.00' } });
    expect(await s.orderStatus(c.order_id)).toBe('pending');

    s.double.approve(session.reference);
    const payment = await ok(await payWith(c, session.client.paypal_order_id), 201);
    expect(payment).toMatchObject({ status: 'paid', provider_payment_id: session.reference, amount: 9500, currency: 'USD' });
    await s.expectPaid(c, variant, payment, 'paypal');

    await s.expectRefundedInTwo(c, payment);
    const atPayPal = s.double.orders.get(session.reference)!.order.purchase_units[0].payments!;
    expect(atPayPal.captures[0].status).toBe('REFUNDED');
    expect(atPayPal.refunds.map((r) => r.amount.value)).toEqual(['15.00', '80.00']);
    await s.untilRefunded(c, variant);
  });

  it('paid by polling: the payment waits for the buyer, GET /payments/:id captures after the approval', async () => {
    const { checkout: c } = await s.awaitingPayment();
    const session = await ok(await openSession(s.store, { id: c.order_id }), 201);
    const payment = await ok(await payWith(c, session.reference), 201);
    expect(payment).toMatchObject({ status: 'pending', next_action: { type: 'paypal_approval', paypal_order_id: session.reference } });
    expect((await s.store('GET', `${PAYMENTS}/${payment.id}`)).json().data.status).toBe('pending');
    expect(await s.orderStatus(c.order_id)).toBe('pending');

    s.double.approve(session.reference);
    expect((await s.store('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'paid', next_action: null });
    await s.untilPaid(c);
    expect(await outbox(s.t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);
  });

  it('paid on PayPal’s webhook: CHECKOUT.ORDER.APPROVED captures the waiting payment; a late PAYMENT.CAPTURE.COMPLETED changes nothing more', async () => {
    const { checkout: c } = await s.awaitingPayment();
    const session = await ok(await openSession(s.store, { id: c.order_id }), 201);
    const payment = await ok(await payWith(c, session.reference), 201);
    expect(payment.status).toBe('pending');
    s.double.approve(session.reference);
    const approved = await notify(s.t, s.shop.id, s.double.orderEvent(account.webhook_id, 'CHECKOUT.ORDER.APPROVED', session.reference));
    expect(approved.json().data.outcome).toBe('processed');
    await s.untilPaid(c);
    const late = await notify(s.t, s.shop.id, s.double.captureEvent(account.webhook_id, 'PAYMENT.CAPTURE.COMPLETED', session.reference));
    expect(late.json().data.outcome).toBe('processed');
    expect(await outbox(s.t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);
  });

  it('pays in parts: too little leaves the order pending with what is due, too much is refused, the rest pays it', async () => {
    const { checkout: c, variant } = await s.awaitingPayment();
    await s.expectPaidInParts(c, variant, async (amount) => {
      const opened = await s.store('POST', SESSIONS, { order_id: c.order_id, gateway: 'paypal', amount });
      if (opened.statusCode !== 201) return opened;
      const session = opened.json().data;
      expect(s.double.orders.get(session.reference)!.order.purchase_units[0].amount.value).toBe((amount / 100).toFixed(2));
      s.double.approve(session.reference);
      return payWith({ ...c, total: amount }, session.reference);
    });
  });
});
