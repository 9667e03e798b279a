import { fullPath, ok, outbox, PAYMENTS, type FullPath } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mercadopago from '../src/index.js';
import { MercadoPagoDouble } from '../src/testing.js';
import { BASE_URL_VARIABLE, configure, newAccount, notify, type MpAccount } from './helpers.js';

// cart → checkout → order → payment on Mercado Pago (in_process) → signed notification → order paid (stock reserved)
// → checkout completed → refund → order refunded; workers run the event jobs, as in production.
let account: MpAccount;
let s: FullPath<MercadoPagoDouble>;
beforeAll(async () => {
  account = newAccount();
  s = await fullPath(mercadopago, BASE_URL_VARIABLE, await new MercadoPagoDouble(new Set([account.access_token])).start(), (a) => configure(a, account));
});
afterAll(() => s?.close());

describe('the whole path on Mercado Pago', () => {
  it('cart → checkout → payment → notification → order paid → checkout completed → refund → order refunded', async () => {
    const { checkout: c, variant } = await s.awaitingPayment();
    const payment = await ok(await s.store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'mercadopago', amount: c.total, currency: c.currency, token: 'tok_in_process', installments: 1, payment_method_id: 'visa', email: 'rosa@example.com' }), 201);
    expect(payment.status).toBe('processing');
    expect(s.double.requests.at(-1)!.json).toMatchObject({ transaction_amount: 95, token: 'tok_in_process', installments: 1, payment_method_id: 'visa', payer: { email: 'rosa@example.com' } });
    expect(await s.orderStatus(c.order_id)).toBe('pending');

    s.double.settle(payment.provider_payment_id, 'approved');
    const res = await notify(s.t, s.shop.id, s.double.notification(account.webhook_secret, payment.provider_payment_id), payment.provider_payment_id);
    expect(res.json().data.outcome).toBe('processed');
    await s.expectPaid(c, variant, payment, 'credit_card');

    await s.expectRefundedInTwo(c, payment);
    expect(s.double.payments.get(payment.provider_payment_id)).toMatchObject({ status: 'refunded', transaction_amount_refunded: 95 });
    await s.untilRefunded(c, variant);
  });

  it('a sale at once takes the same path without a notification; a late notification changes nothing more', async () => {
    const { checkout: c } = await s.awaitingPayment();
    const payment = await ok(await s.store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'mercadopago', amount: c.total, currency: c.currency, token: 'tok_approved', installments: 1, payment_method_id: 'visa', email: 'rosa@example.com' }), 201);
    expect(payment.status).toBe('paid');
    await s.untilPaid(c);
    const late = await notify(s.t, s.shop.id, s.double.notification(account.webhook_secret, payment.provider_payment_id, { action: 'payment.created' }));
    expect(late.json().data.outcome).toBe('processed');
    expect(await outbox(s.t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);
  });

  it('pays in parts: too little leaves the order pending with what is due, too much is refused, the rest pays it', async () => {
    const { checkout: c, variant } = await s.awaitingPayment();
    await s.expectPaidInParts(c, variant, (amount) =>
      s.store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'mercadopago', amount, currency: c.currency, token: 'tok_approved', installments: 1, payment_method_id: 'visa', email: 'rosa@example.com' }));
  });
});
