import { randomBytes } from 'node:crypto';
import type { TestApp } from '@qhatu/core/testing';
import { configureGateway, PAYMENTS, SESSIONS, type Caller } from '@qhatu/plugin-payments/testing';
import type { Card, NiubizDouble, NiubizMerchant } from '../src/testing.js';

/** Where the operator points Niubiz (the double, in these tests), as in production. */
export const BASE_URL_VARIABLE = 'QHATU_GATEWAY_NIUBIZ_BASE_URL';

/** A Niubiz merchant: its merchant code for soles, its API user, its RUC. */
export function newMerchant(): NiubizMerchant {
  return {
    merchantId: String(400_000_000 + randomBytes(3).readUIntBE(0, 3)),
    username: `integraciones.${randomBytes(4).toString('hex')}@example.pe`,
    password: randomBytes(12).toString('base64'),
    ruc: `20${String(randomBytes(4).readUInt32BE(0) % 1_000_000_000).padStart(9, '0')}`,
  };
}

export const credentials = (m: NiubizMerchant) => ({ merchant_id: m.merchantId, username: m.username, password: m.password, ruc: m.ruc });

export const configure = (admin: Caller, merchant: NiubizMerchant) => configureGateway(admin, 'niubiz', credentials(merchant));

export interface Session {
  id: string;
  order_id: string;
  amount: number;
  currency: string;
  reference: string;
  client: { session_key: string; merchant_id: string; purchase_number: string; amount: string; currency: string; channel: string; action: string; expires_at: string | null };
  expires_at: string | null;
}

export function openSession(api: Caller, orderId: string, extra: Record<string, unknown> = {}) {
  return api('POST', SESSIONS, { order_id: orderId, gateway: 'niubiz', client_ip: '190.117.23.9', ...extra });
}

/** A session for the order, paid in the checkout form: what the browser holds before it posts back. */
export async function paidInForm(api: Caller, double: NiubizDouble, orderId: string, card: Card = 'approved', extra: Record<string, unknown> = {}) {
  const res = await openSession(api, orderId, extra);
  if (res.statusCode !== 201) throw new Error(`session not opened: ${res.body}`);
  const session = res.json().data as Session;
  return { session, token: double.pay(session.client, card) };
}

/** POST /payments with the session key and the form's transaction token. */
export function pay(api: Caller, order: { id: string; total: number; currency: string }, sessionKey: string, token: string) {
  return api('POST', PAYMENTS, { order_id: order.id, gateway: 'niubiz', amount: order.total, currency: order.currency, session_key: sessionKey, transaction_token: token });
}

/** The checkout form's post to the session's action URL, as the shopper's browser sends it. */
export function formPost(t: TestApp, action: string, token: string, email = 'rosa@example.com') {
  const url = new URL(action);
  const payload = new URLSearchParams({ transactionToken: token, customerEmail: email, channel: 'web' }).toString();
  return t.request({ method: 'POST', url: `${url.pathname}${url.search}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload });
}
