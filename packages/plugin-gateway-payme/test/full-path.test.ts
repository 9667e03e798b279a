import { fullPath, ok, outbox, PAYMENTS, SESSIONS, type FullPath } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import payme from '../src/index.js';
import { CARDS, PaymeDouble } from '../src/testing.js';
import { BASE_URL_VARIABLE, configure, newAccount, notify, openSession, type PaymeAccount } from './helpers.js';

// cart → checkout → order → Pay-me session → Flex charge in the browser → payment → signed
// notification → order paid (stock reserved) → checkout completed → extorno → order refunded;
// workers run the event jobs, as in production.
let account: PaymeAccount;
let s: FullPath<PaymeDouble>;
beforeAll(async () => {
  const double = await new PaymeDouble().start();
  account = newAccount(double);
  s = await fullPath(payme, BASE_URL_VARIABLE, double, (a) => configure(a, account));
});
afterAll(() => s?.close());

describe('the whole path on Pay-me', () => {
  it('cart → checkout → session → Flex → payment → notification → order paid → checkout completed → refund → order refunded', async () => {
    const { checkout: c, variant } = await s.awaitingPayment();
    const session = await openSession(s.store, c.order_id);
    expect(session.client).toMatchObject({ amount: '9500', currency: '604', merchant_code: account.merchant_code, merchant_operation_number: session.reference });

    // The shopper pays in Pay-me Flex; the processor's verdict comes later.
    const { chargeId } = await s.double.pay(session.client, CARDS.HELD);
    const payment = await ok(await s.store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'payme', amount: c.total, currency: c.currency, charge_id: chargeId, merchant_operation_number: session.reference }), 201);
    expect(payment).toMatchObject({ status: 'processing', provider_payment_id: `${session.reference}/${chargeId}` });
    expect(await s.orderStatus(c.order_id)).toBe('pending');

    s.double.settle(chargeId, 'AUTORIZADO');
    const res = await notify(s.t, s.shop.id, s.double.notification(chargeId));
    expect(res.json().data.outcome).toBe('processed');
    await s.expectPaid(c, variant, payment, 'card');

    const refund = await ok(await s.admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0, reason: 'requested_by_customer' }), 201);
    expect(refund).toMatchObject({ amount: 9500, status: 'refunded' });
    expect(s.double.operations.get(`${account.merchant_code}/${session.reference}`)!.state).toBe('CANCELADO');
    expect((await s.admin('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'refunded', refunded_amount: 9500 });
    await s.untilRefunded(c, variant);
  });

  it('an authorised Flex charge is paid at once; the late notification changes nothing more', async () => {
    const { checkout: c } = await s.awaitingPayment();
    const session = await openSession(s.store, c.order_id);
    const { chargeId } = await s.double.pay(session.client);
    const payment = await ok(await s.store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'payme', amount: c.total, currency: c.currency, charge_id: chargeId, merchant_operation_number: session.reference }), 201);
    expect(payment.status).toBe('paid');
    await s.untilPaid(c);
    const late = await notify(s.t, s.shop.id, s.double.notification(chargeId));
    expect(late.json().data.outcome).toBe('processed');
    expect(await outbox(s.t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);
  });

  it('pays in parts: too little leaves the order pending with what is due, too much is refused, the rest pays it', async () => {
    const { checkout: c, variant } = await s.awaitingPayment();
    await s.expectPaidInParts(c, variant, async (amount) => {
      const opened = await s.store('POST', SESSIONS, { order_id: c.order_id, gateway: 'payme', amount });
      if (opened.statusCode !== 201) return opened;
      const session = opened.json().data;
      expect(session.client.amount).toBe(String(amount));
      const { chargeId } = await s.double.pay(session.client);
      return s.store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'payme', amount, currency: c.currency, charge_id: chargeId, merchant_operation_number: session.reference });
    });
  });
});
