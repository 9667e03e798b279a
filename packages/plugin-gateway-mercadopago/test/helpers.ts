import { randomBytes } from 'node:crypto';
import type { TestApp } from '@qhatu/core/testing';
import { configureGateway, PAYMENTS, type Caller } from '@qhatu/plugin-payments/testing';

/** Where the operator points Mercado Pago (the double, in these tests), as in production. */
export const BASE_URL_VARIABLE = 'QHATU_GATEWAY_MERCADOPAGO_BASE_URL';

export interface MpAccount {
  access_token: string;
  webhook_secret: string;
  public_key: string;
}

export function newAccount(): MpAccount {
  const k = randomBytes(8).toString('hex');
  return { access_token: `TEST-${k}-access`, webhook_secret: randomBytes(24).toString('hex'), public_key: `TEST-${k}-public` };
}

export const configure = (admin: Caller, account: MpAccount) => configureGateway(admin, 'mercadopago', account);

export async function pay(api: Caller, order: { id: string; total: number; currency: string }, token = 'tok_approved', extra: Record<string, unknown> = {}) {
  return api('POST', PAYMENTS, { order_id: order.id, gateway: 'mercadopago', amount: order.total, currency: order.currency, token, installments: 1, payment_method_id: 'visa', email: 'rosa@example.com', ...extra });
}

/** Posts a notification as Mercado Pago does: `?data.id=…&type=payment`, x-signature and x-request-id. */
export function notify(t: TestApp, tenantId: string, n: { body: string; requestId?: string; signature?: string }, dataId?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (n.signature !== undefined) headers['x-signature'] = n.signature;
  if (n.requestId !== undefined) headers['x-request-id'] = n.requestId;
  const base = tenantId.startsWith('/') ? tenantId : `/webhooks/mercadopago/${tenantId}`;
  const query = dataId ? `${base.includes('?') ? '&' : '?'}data.id=${encodeURIComponent(dataId)}&type=payment` : '';
  return t.request({ method: 'POST', url: `${base}${query}`, headers, payload: n.body });
}

