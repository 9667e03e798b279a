import { randomBytes } from 'node:crypto';
import type { TestApp } from '@qhatu/core/testing';
import { configureGateway, PAYMENTS, type Caller } from '@qhatu/plugin-payments/testing';
import { basicAuthHeader } from '../src/basic-auth.js';

/** Where the operator points Culqi (the double, in these tests), as in production. */
export const BASE_URL_VARIABLE = 'QHATU_GATEWAY_CULQI_BASE_URL';

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

export const configure = (admin: Caller, account: CulqiAccount) => configureGateway(admin, 'culqi', account);

export async function pay(api: Caller, order: { id: string; total: number; currency: string }, token = 'tkn_test_visa', email = 'rosa@example.com') {
  return api('POST', PAYMENTS, { order_id: order.id, gateway: 'culqi', amount: order.total, currency: order.currency, token_id: token, email });
}

/** Posts a Culqi event to a store's notification address, as Culqi does: Basic auth from CulqiPanel. */
export function notify(t: TestApp, tenantId: string, event: { body: string }, auth?: { username: string; password: string } | string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (typeof auth === 'string') headers.authorization = auth;
  else if (auth) headers.authorization = basicAuthHeader(auth.username, auth.password);
  return t.request({ method: 'POST', url: tenantId.startsWith('/') ? tenantId : `/webhooks/culqi/${tenantId}`, headers, payload: event.body });
}

export const auth = (account: CulqiAccount) => ({ username: account.webhook_username, password: account.webhook_password });

