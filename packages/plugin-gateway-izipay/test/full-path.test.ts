import { fullPath, ok, outbox, PAYMENTS, SESSIONS, until, type FullPath } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import izipay from '../src/index.js';
import { IzipayDouble, type Account } from '../src/testing.js';
import { BASE_URL_VARIABLE, configure, newAccount, notify } from './helpers.js';

// cart → checkout → order → form token → embedded form → payment (the transaction re-read) → IPN → order
// paid (stock reserved) → checkout completed → refund → order refunded; workers run the event jobs.
let account: Account;
let s: FullPath<IzipayDouble>;
beforeAll(async () => {
  account = newAccount();
  s = await fullPath(izipay, BASE_URL_VARIABLE, await new IzipayDouble([account]).start(), (a) => configure(a, account));
});
afterAll(() => s?.close());

/** What the storefront does: a form token for the order, the embedded form, then the payment naming the transaction. */
async function payInForm(c: { order_id: string; total: number; currency: string }, card: 'accepted' | 'review') {
  const session = await ok(await s.store('POST', SESSIONS, { order_id: c.order_id, gateway: 'izipay' }), 201);
  expect(session).toMatchObject({ amount: 9500, currency: 'PEN', client: { public_key: account.public_key, order_id: c.order_id } });
  expect(s.double.requests.at(-1)!.json).toMatchObject({ amount: 9500, currency: 'PEN', orderId: c.order_id, customer: { email: 'rosa@example.com' } });
  const browser = s.double.pay(session.client.form_token, card);
  const payment = await ok(await s.store('POST', PAYMENTS, {
    order_id: c.order_id, gateway: 'izipay', amount: c.total, currency: c.currency,
    kr_answer: browser.krAnswer, transaction_id: browser.uuid, kr_hash: browser.krHash,
  }), 201);
  return { payment, uuid: browser.uuid };
}

describe('the whole path on Izipay', () => {
  it('cart → checkout → form token → payment → IPN → order paid → checkout completed → refund → order refunded', async () => {
    const { checkout: c, variant } = await s.awaitingPayment();
    const { payment, uuid } = await payInForm(c, 'review');
    expect(payment).toMatchObject({ status: 'processing', provider_payment_id: uuid });
    expect(await s.orderStatus(c.order_id)).toBe('pending');

    s.double.settle(uuid, 'accepted');
    const ipn = s.double.ipn(uuid);
    expect(ipn.url).toContain(`/webhooks/izipay/${s.shop.id}?session=`);
    expect((await notify(s.t, ipn.url, ipn.body)).json().data.outcome).toBe('processed');
    await s.expectPaid(c, variant, payment, 'card:visa');

    // Remitted overnight: from now on Izipay refunds (a part), it no longer cancels.
    s.double.remit(uuid);
    await s.expectRefundedInTwo(c, payment);
    expect(s.double.transactions.get(uuid)!.refunded).toBe(9500);
    await s.untilRefunded(c, variant);
  });

  it('an accepted card pays at once; the late IPN changes nothing more; a cancellation before remittance refunds the order', async () => {
    const { checkout: c } = await s.awaitingPayment();
    const { payment, uuid } = await payInForm(c, 'accepted');
    expect(payment.status).toBe('paid');
    await s.untilPaid(c);
    const ipn = s.double.ipn(uuid);
    expect((await notify(s.t, ipn.url, ipn.body)).json().data.outcome).toBe('processed');
    expect(await outbox(s.t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);

    const refund = await ok(await s.admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 }), 201);
    expect(refund).toMatchObject({ amount: 9500, status: 'refunded', provider_refund_id: uuid });
    expect(s.double.transactions.get(uuid)).toMatchObject({ detailedStatus: 'CANCELLED' });
    await until(async () => (await s.orderStatus(c.order_id)) === 'refunded');
  });

  it('pays in parts: too little leaves the order pending with what is due, too much is refused, the rest pays it', async () => {
    const { checkout: c, variant } = await s.awaitingPayment();
    await s.expectPaidInParts(c, variant, async (amount) => {
      const opened = await s.store('POST', SESSIONS, { order_id: c.order_id, gateway: 'izipay', amount });
      if (opened.statusCode !== 201) return opened;
      const browser = s.double.pay(opened.json().data.client.form_token, 'accepted');
      return s.store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'izipay', amount, currency: c.currency, kr_answer: browser.krAnswer, transaction_id: browser.uuid, kr_hash: browser.krHash });
    });
  });
});
