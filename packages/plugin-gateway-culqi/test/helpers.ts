import { randomBytes } from 'node:crypto';
import type { QhatuPlugin } from '@qhatu/core';
import type { TestApp } from '@qhatu/core/testing';
import { gatewayApp, PAYMENTS, GATEWAYS, type Caller } from '@qhatu/plugin-payments/testing';
import { basicAuthHeader } from '../src/basic-auth.js';
import culqi from '../src/index.js';

export { caller, createOrder, GATEWAYS, MISSING, outbox, PAYMENTS, until, type Caller } from '@qhatu/plugin-payments/testing';

/** The app with Culqi pointed at the double (operator configuration, as in production). */
export function culqiApp(baseUrl: string, options: { workers?: boolean; plugins?: QhatuPlugin[] } = {}): Promise<TestApp> {
  return gatewayApp(culqi, 'QHATU_GATEWAY_CULQI_BASE_URL', baseUrl, options);
}

export interface CulqiAccount {
  secret_key: string;
  webhook_username: string;
  webhook_password: string;
  public_key: string;
}

export function newAccount(): CulqiAccount {
  const k = randomBytes(8).toString('hex');
  return { secret_key: `sk_test_${k}`, webhook_username: `qhatu-${k}`, webhook_password: randomBytes(18).toString('base64'), public_key: `pk_test_${k}` };
}

export async function configure(admin: Caller, account: CulqiAccount): Promise<void> {
  const res = await admin('PUT', `${GATEWAYS}/culqi`, { enabled: true, credentials: account });
  if (res.statusCode !== 200) throw new Error(`culqi not configured: ${res.body}`);
}

export async function pay(api: Caller, order: { id: string; total: number; currency: string }, token = 'tkn_test_visa', email = 'rosa@example.com') {
  return api('POST', PAYMENTS, { order_id: order.id, gateway: 'culqi', amount: order.total, currency: order.currency, token_id: token, email });
}

/** Posts a Culqi event to a store's notification address, as Culqi does: Basic auth from CulqiPanel. */
export function notify(t: TestApp, tenantId: string, event: { body: string }, auth?: { username: string; password: string } | string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (typeof auth === 'string') headers.authorization = auth;
  else if (auth) headers.authorization = basicAuthHeader(auth.username, auth.password);
  return t.request({ method: 'POST', url: `/webhooks/culqi/${tenantId}`, headers, payload: event.body });
}

export const auth = (account: CulqiAccount) => ({ username: account.webhook_username, password: account.webhook_password });

