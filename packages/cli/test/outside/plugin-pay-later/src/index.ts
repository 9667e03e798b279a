import { createHmac, timingSafeEqual } from 'node:crypto';
import { definePlugin } from '@qhatu/core';
import { PAYMENT_GATEWAY, type GatewayContext, type PaymentGateway } from '@qhatu/plugin-payments';

/** Pay Later's API: a JSON API with a bearer key; charges are approved at once or declined. */
async function payLater<T>(ctx: GatewayContext, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${ctx.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${ctx.credentials.api_key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return (await res.json()) as T;
}

type Charge = { id: string; status: 'approved' | 'declined'; reason?: string };
const outcome = (c: Charge) =>
  c.status === 'approved'
    ? { status: 'paid' as const, providerPaymentId: c.id, method: 'pay_later' }
    : { status: 'failed' as const, providerPaymentId: c.id, failureReason: c.reason ?? 'declined' };

export const payLaterGateway: PaymentGateway = {
  id: 'pay-later',
  name: 'Pay Later',
  currencies: ['PEN', 'USD'],
  paymentFields: [{ name: 'plan', type: 'string', required: true, description: 'The instalment plan the shopper chose' }],
  credentialFields: [
    { name: 'api_key', required: true, secret: true, description: 'Pay Later API key' },
    { name: 'signing_key', required: true, secret: true, description: 'Key of the notifications' },
  ],
  defaultBaseUrl: 'https://api.pay-later.invalid',
  // The payment id is Pay Later's idempotency key: asking twice never charges twice.
  idempotent: { charge: true, refund: false },
  async charge(ctx, req) {
    return outcome(await payLater<Charge>(ctx, 'POST', '/charges', { reference: req.paymentId, amount: req.amount, currency: req.currency, plan: req.fields.plan }));
  },
  async status(ctx, id) {
    return outcome(await payLater<Charge>(ctx, 'GET', `/charges/${id}`));
  },
  async refund(ctx, req) {
    const r = await payLater<{ id: string; ok: boolean }>(ctx, 'POST', '/refunds', { charge: req.providerPaymentId, amount: req.amount });
    return r.ok ? { status: 'refunded', providerRefundId: r.id } : { status: 'failed', providerRefundId: null, failureReason: 'refused' };
  },
  verifyNotification(ctx, n) {
    const given = Buffer.from(String(n.headers['x-pay-later-signature'] ?? ''), 'hex');
    const expected = createHmac('sha256', ctx.credentials.signing_key ?? '').update(n.rawBody).digest();
    return given.length === expected.length && timingSafeEqual(given, expected);
  },
  parseNotification(n) {
    try {
      const body = JSON.parse(n.rawBody.toString()) as { event_id?: string; charge_id?: string };
      return body.event_id ? { eventId: body.event_id, providerPaymentId: body.charge_id ?? null } : null;
    } catch {
      return null;
    }
  },
};

/** pay-later: an instalments provider as one more gateway of the store. */
export const payLaterPlugin = definePlugin({
  name: 'pay-later',
  dependsOn: ['payments'],
  register(container) {
    container.register(PAYMENT_GATEWAY, { useValue: payLaterGateway });
  },
});

export default payLaterPlugin;
