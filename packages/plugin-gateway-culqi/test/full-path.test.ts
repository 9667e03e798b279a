import { fullPath, ok, outbox, PAYMENTS, type FullPath } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import culqi from '../src/index.js';
import { CulqiDouble } from '../src/testing.js';
import { auth, BASE_URL_VARIABLE, configure, newAccount, notify, type CulqiAccount } from './helpers.js';

// cart → checkout → order → payment on Culqi → Basic-auth notification → order paid (stock reserved)
// → checkout completed → refund → order refunded; workers run the event jobs, as in production.
let account: CulqiAccount;
let s: FullPath<CulqiDouble>;
beforeAll(async () => {
  account = newAccount();
  s = await fullPath(culqi, BASE_URL_VARIABLE, await new CulqiDouble(new Set([account.secret_key])).start(), (a) => configure(a, account));
});
afterAll(() => s?.close());

describe('the whole path on Culqi', () => {
  it('cart → checkout → payment → notification → order paid → checkout completed → refund → order refunded', async () => {
    const { checkout: c, variant } = await s.awaitingPayment();
    const payment = await ok(await s.store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'culqi', amount: c.total, currency: c.currency, token_id: 'tkn_test_held', email: 'rosa@example.com' }), 201);
    expect(payment.status).toBe('processing');
    expect(s.double.requests.at(-1)!.json).toMatchObject({ amount: 9500, currency_code: 'PEN', source_id: 'tkn_test_held' });
    expect(await s.orderStatus(c.order_id)).toBe('pending');

    const charge = s.double.settle(payment.provider_payment_id, 'sale');
    const res = await notify(s.t, s.shop.id, s.double.event('charge.status.changed', charge), auth(account));
    expect(res.json().data.outcome).toBe('processed');
    await s.expectPaid(c, variant, payment, 'card');

    await s.expectRefundedInTwo(c, payment);
    expect(s.double.charges.get(payment.provider_payment_id)!.amount_refunded).toBe(9500);
    await s.untilRefunded(c, variant);
  });

  it('a sale at once takes the same path without a notification; a late notification changes nothing more', async () => {
    const { checkout: c } = await s.awaitingPayment();
    const payment = await ok(await s.store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'culqi', amount: c.total, currency: c.currency, token_id: 'tkn_test_visa', email: 'rosa@example.com' }), 201);
    expect(payment.status).toBe('paid');
    await s.untilPaid(c);
    const late = await notify(s.t, s.shop.id, s.double.event('charge.creation.succeeded', s.double.charges.get(payment.provider_payment_id)!), auth(account));
    expect(late.json().data.outcome).toBe('processed');
    expect(await outbox(s.t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);
  });

  it('pays in parts: too little leaves the order pending with what is due, too much is refused, the rest pays it', async () => {
    const { checkout: c, variant } = await s.awaitingPayment();
    const { first, rest } = await s.expectPaidInParts(c, variant, (amount) =>
      s.store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'culqi', amount, currency: c.currency, token_id: 'tkn_test_visa', email: 'rosa@example.com' }));
    expect([first, rest].map((p) => s.double.charges.get(p.provider_payment_id)!.amount)).toEqual([2500, 7000]);
  });
});
