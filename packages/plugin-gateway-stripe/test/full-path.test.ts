import { fullPath, ok, outbox, PAYMENTS, type FullPath } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import stripe from '../src/index.js';
import { StripeDouble } from '../src/testing.js';
import { BASE_URL_VARIABLE, configure, newAccount, notify, type StripeAccount } from './helpers.js';

// cart → checkout → order → payment on Stripe → signed notification → order paid (stock reserved)
// → checkout completed → refund → order refunded; workers run the event jobs, as in production.
let account: StripeAccount;
let s: FullPath<StripeDouble>;
beforeAll(async () => {
  account = newAccount();
  s = await fullPath(stripe, BASE_URL_VARIABLE, await new StripeDouble(new Set([account.secret_key])).start(), (a) => configure(a, account));
});
afterAll(() => s?.close());

describe('the whole path on Stripe', () => {
  it('cart → checkout → payment → notification → order paid → checkout completed → refund → order refunded', async () => {
    const { checkout: c, variant } = await s.awaitingPayment();
    const payment = await ok(await s.store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'stripe', amount: c.total, currency: c.currency, payment_method_id: 'pm_card_processing' }), 201);
    expect(payment.status).toBe('processing');
    expect(await s.orderStatus(c.order_id)).toBe('pending');

    const intent = s.double.settle(payment.provider_payment_id, 'succeeded');
    const res = await notify(s.t, s.shop.id, s.double.event('payment_intent.succeeded', intent, account.webhook_secret));
    expect(res.json().data.outcome).toBe('processed');
    await s.expectPaid(c, variant, payment, 'card');

    const refund = await ok(await s.admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0, reason: 'requested_by_customer' }), 201);
    expect(refund).toMatchObject({ amount: 9500, status: 'refunded' });
    expect((await s.admin('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'refunded', refunded_amount: 9500 });
    expect(await s.orderStatus(c.order_id)).toBe('refunded');
    expect(JSON.stringify(await s.level(s.warehouse, variant))).toContain('"reserved":0');
  });

  it('a payment paid at once (no 3-D Secure) takes the same path without a notification', async () => {
    const { checkout: c } = await s.awaitingPayment();
    const payment = await ok(await s.store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'stripe', amount: c.total, currency: c.currency, payment_method_id: 'pm_card_visa' }), 201);
    expect(payment.status).toBe('paid');
    await s.untilPaid(c);
    // A late notification for the same intent changes nothing more.
    const late = await notify(s.t, s.shop.id, s.double.event('payment_intent.succeeded', s.double.intents.get(payment.provider_payment_id)!, account.webhook_secret));
    expect(late.json().data.outcome).toBe('processed');
    expect(await outbox(s.t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);
  });

  it('pays in parts: too little leaves the order pending with what is due, too much is refused, the rest pays it', async () => {
    const { checkout: c, variant } = await s.awaitingPayment();
    await s.expectPaidInParts(c, variant, (amount) =>
      s.store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'stripe', amount, currency: c.currency, payment_method_id: 'pm_card_visa' }));
  });
});
