import { randomBytes } from 'node:crypto';
import type { TestApp } from '@qhatu/core/testing';
import { configureGateway, PAYMENTS, type Caller } from '@qhatu/plugin-payments/testing';

/** Where the operator points Stripe (the double, in these tests), as in production. */
export const BASE_URL_VARIABLE = 'QHATU_GATEWAY_STRIPE_BASE_URL';

export interface StripeAccount {
  secret_key: string;
  webhook_secret: string;
  publishable_key: string;
}

export function newAccount(): StripeAccount {
  const k = randomBytes(8).toString('hex');
  return { secret_key: `sk_test_${k}`, webhook_secret: `whsec_${randomBytes(18).toString('base64')}`, publishable_key: `pk_test_${k}` };
}

export const configure = (admin: Caller, account: StripeAccount) => configureGateway(admin, 'stripe', account);

export async function pay(api: Caller, order: { id: string; total: number; currency: string }, paymentMethod = 'pm_card_visa') {
  return api('POST', PAYMENTS, { order_id: order.id, gateway: 'stripe', amount: order.total, currency: order.currency, payment_method_id: paymentMethod });
}

/** Posts a Stripe event to a store's notification address (or, given `/webhooks/...`, that address), as Stripe does. */
export function notify(t: TestApp, tenantId: string, event: { body: string; signature?: string }) {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' };
  if (event.signature !== undefined) headers['stripe-signature'] = event.signature;
  return t.request({ method: 'POST', url: tenantId.startsWith('/') ? tenantId : `/webhooks/stripe/${tenantId}`, headers, payload: event.body });
}
