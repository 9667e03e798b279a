import { fullPath, ok, outbox, PAYMENTS, SESSIONS, type FullPath } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import niubiz from '../src/index.js';
import { NiubizDouble, type NiubizMerchant } from '../src/testing.js';
import { BASE_URL_VARIABLE, configure, formPost, newMerchant, type Session } from './helpers.js';

// cart → checkout → order → Niubiz session → the shopper pays in checkout.js → the form posts back
// → order paid (stock reserved) → checkout completed → refunds registered at Niubiz, settled when
// re-read → order refunded; workers run the event jobs, as in production.
let merchant: NiubizMerchant;
let s: FullPath<NiubizDouble>;
beforeAll(async () => {
  merchant = newMerchant();
  s = await fullPath(niubiz, BASE_URL_VARIABLE, await new NiubizDouble([merchant]).start(), (a) => configure(a, merchant));
});
afterAll(() => s?.close());

const payment = async (id: string) => (await s.admin('GET', `${PAYMENTS}/${id}`)).json().data;

describe('the whole path on Niubiz', () => {
  it('cart → checkout → session → checkout form → post back → order paid → checkout completed → refunds → order refunded', async () => {
    const { checkout: c, variant } = await s.awaitingPayment();
    const session: Session = await ok(await s.store('POST', SESSIONS, { order_id: c.order_id, gateway: 'niubiz', client_ip: '190.117.23.9', return_url: 'https://tienda.example.pe/pedido' }), 201);
    expect(session.client).toMatchObject({ amount: '95.00', currency: 'PEN', merchant_id: merchant.merchantId });
    expect(s.double.requests.at(-1)!.json).toMatchObject({ amount: 95, antifraud: { merchantDefineData: { MDD4: 'rosa@example.com' } } });

    const token = s.double.pay(session.client);
    const back = await formPost(s.t, session.client.action, token);
    expect(back.statusCode).toBe(303);
    const location = new URL(back.headers.location as string);
    expect(location.origin + location.pathname).toBe('https://tienda.example.pe/pedido');
    expect(location.searchParams.get('status')).toBe('paid');
    const paid = await payment(location.searchParams.get('payment_id')!);
    expect(paid).toMatchObject({ order_id: c.order_id, amount: 9500, status: 'paid', method: 'visa' });
    await s.expectPaid(c, variant, paid, 'visa');

    // Devoluciones are registered first and settled by Niubiz later; reading the payment re-reads them.
    const partial = await ok(await s.admin('POST', `${PAYMENTS}/${paid.id}/refund`, { amount: 1500, reason: 'requested_by_customer' }), 201);
    expect(partial).toMatchObject({ amount: 1500, status: 'processing' });
    s.double.settleRefund(partial.provider_refund_id, 'PROCESADO');
    expect(await payment(paid.id)).toMatchObject({ status: 'partially_refunded', refunded_amount: 1500 });
    expect(await s.orderStatus(c.order_id)).toBe('paid');

    const rest = await ok(await s.admin('POST', `${PAYMENTS}/${paid.id}/refund`, { amount: 0, reason: 'requested_by_customer' }), 201);
    expect(rest).toMatchObject({ amount: 8000, status: 'processing' });
    expect(await payment(paid.id)).toMatchObject({ status: 'partially_refunded', refunded_amount: 1500 });
    s.double.settleRefund(rest.provider_refund_id, 'PROCESADO');
    expect(await payment(paid.id)).toMatchObject({ status: 'refunded', refunded_amount: 9500 });
    expect(s.double.transactions.get(paid.provider_payment_id)!.refunded).toBe(9500);
    await s.untilRefunded(c, variant);
  });

  it('the storefront may pay with POST /payments instead; the form’s late post back changes nothing more', async () => {
    const { checkout: c } = await s.awaitingPayment();
    const session: Session = await ok(await s.store('POST', SESSIONS, { order_id: c.order_id, gateway: 'niubiz', client_ip: '190.117.23.9' }), 201);
    const token = s.double.pay(session.client);
    const paid = await ok(await s.store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'niubiz', amount: c.total, currency: c.currency, session_key: session.reference, transaction_token: token }), 201);
    expect(paid.status).toBe('paid');
    await s.untilPaid(c);
    const late = await formPost(s.t, session.client.action, token);
    expect(late.json().data).toEqual({ received: true, outcome: 'duplicate', payment_id: paid.id, status: 'paid' });
    expect(await outbox(s.t, 'payments.payment.confirmed', paid.id)).toHaveLength(1);
  });

  it('pays in parts: too little leaves the order pending with what is due, too much is refused, the rest pays it', async () => {
    const { checkout: c, variant } = await s.awaitingPayment();
    await s.expectPaidInParts(c, variant, async (amount) => {
      const opened = await s.store('POST', SESSIONS, { order_id: c.order_id, gateway: 'niubiz', client_ip: '190.117.23.9', amount });
      if (opened.statusCode !== 201) return opened;
      const session: Session = opened.json().data;
      expect(session.client.amount).toBe((amount / 100).toFixed(2));
      const token = s.double.pay(session.client);
      return s.store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'niubiz', amount, currency: c.currency, session_key: session.reference, transaction_token: token });
    });
  });
});
