import { randomBytes } from 'node:crypto';
import type { QhatuPlugin } from '@qhatu/core';
import type { TestApp } from '@qhatu/core/testing';
import { gatewayApp, PAYMENTS, GATEWAYS, type Caller } from '@qhatu/plugin-payments/testing';
import stripe from '../src/index.js';

export { caller, createOrder, GATEWAYS, MISSING, outbox, PAYMENTS, until, type Caller } from '@qhatu/plugin-payments/testing';

/** The app with Stripe pointed at the double (operator configuration, as in production). */
export function stripeApp(baseUrl: string, options: { workers?: boolean; plugins?: QhatuPlugin[] } = {}): Promise<TestApp> {
  return gatewayApp(stripe, 'QHATU_GATEWAY_STRIPE_BASE_URL', baseUrl, options);
}

export interface StripeAccount {
  secret_key: string;
  webhook_secret: string;
  publishable_key: string;
}

export function newAccount(): StripeAccount {
  const k = randomBytes(8).toString('hex');
  return { secret_key: `sk_test_${k}`, webhook_secret: `whsec_${randomBytes(18).toString('base64')}`, publishable_key: `pk_test_${k}` };
}

export async function configure(admin: Caller, account: StripeAccount): Promise<void> {
  const res = await admin('PUT', `${GATEWAYS}/stripe`, { enabled: true, credentials: account });
  if (res.statusCode !== 200) throw new Error(`stripe not configured: ${res.body}`);
}

export async function pay(api: Caller, order: { id: string; total: number; currency: string }, paymentMethod = 'pm_card_visa') {
  return api('POST', PAYMENTS, { order_id: order.id, gateway: 'stripe', amount: order.total, currency: order.currency, payment_method_id: paymentMethod });
}

/** Posts a Stripe event to a store's notification address, as Stripe does. */
export function notify(t: TestApp, tenantId: string, event: { body: string; signature?: string }) {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' };
  if (event.signature !== undefined) headers['stripe-signature'] = event.signature;
  return t.request({ method: 'POST', url: `/webhooks/stripe/${tenantId}`, headers, payload: event.body });
}

