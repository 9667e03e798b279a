import { randomBytes } from 'node:crypto';
import type { QhatuPlugin } from '@qhatu/core';
import type { TestApp } from '@qhatu/core/testing';
import { gatewayApp, PAYMENTS, GATEWAYS, type Caller } from '@qhatu/plugin-payments/testing';
import mercadopago from '../src/index.js';

export { caller, createOrder, GATEWAYS, MISSING, outbox, PAYMENTS, until, type Caller } from '@qhatu/plugin-payments/testing';

/** The app with Mercado Pago pointed at the double (operator configuration, as in production). */
export function mpApp(baseUrl: string, options: { workers?: boolean; plugins?: QhatuPlugin[] } = {}): Promise<TestApp> {
  return gatewayApp(mercadopago, 'QHATU_GATEWAY_MERCADOPAGO_BASE_URL', baseUrl, options);
}

export interface MpAccount {
  access_token: string;
  webhook_secret: string;
  public_key: string;
}

export function newAccount(): MpAccount {
  const k = randomBytes(8).toString('hex');
  return { access_token: `TEST-${k}-access`, webhook_secret: randomBytes(24).toString('hex'), public_key: `TEST-${k}-public` };
}

export async function configure(admin: Caller, account: MpAccount): Promise<void> {
  const res = await admin('PUT', `${GATEWAYS}/mercadopago`, { enabled: true, credentials: account });
  if (res.statusCode !== 200) throw new Error(`mercadopago not configured: ${res.body}`);
}

export async function pay(api: Caller, order: { id: string; total: number; currency: string }, token = 'tok_approved', extra: Record<string, unknown> = {}) {
  return api('POST', PAYMENTS, { order_id: order.id, gateway: 'mercadopago', amount: order.total, currency: order.currency, token, installments: 1, payment_method_id: 'visa', email: 'rosa@example.com', ...extra });
}

/** Posts a notification as Mercado Pago does: `?data.id=…&type=payment`, x-signature and x-request-id. */
export function notify(t: TestApp, tenantId: string, n: { body: string; requestId?: string; signature?: string }, dataId?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (n.signature !== undefined) headers['x-signature'] = n.signature;
  if (n.requestId !== undefined) headers['x-request-id'] = n.requestId;
  const query = dataId ? `?data.id=${encodeURIComponent(dataId)}&type=payment` : '';
  return t.request({ method: 'POST', url: `/webhooks/mercadopago/${tenantId}${query}`, headers, payload: n.body });
}

