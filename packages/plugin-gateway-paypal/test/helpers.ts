import { randomBytes } from 'node:crypto';
import type { TestApp } from '@qhatu/core/testing';
import { caller, configureGateway, gatewayStores, PAYMENTS, SESSIONS, type Caller } from '@qhatu/plugin-payments/testing';
import paypal from '../src/index.js';
import { PayPalDouble, type PayPalAccount } from '../src/testing.js';

/** Where the operator points PayPal (the double, in these tests), as in production. */
export const BASE_URL_VARIABLE = 'QHATU_GATEWAY_PAYPAL_BASE_URL';

const upper = (n: number) => randomBytes(n).toString('hex').toUpperCase().slice(0, n);

/** A REST app as the PayPal developer dashboard shows it, with its webhook and the merchant's account id. */
export function newAccount(): PayPalAccount {
  return {
    client_id: `AZ${randomBytes(30).toString('base64url')}`,
    client_secret: `EL${randomBytes(30).toString('base64url')}`,
    webhook_id: upper(17),
    merchant_id: upper(13),
  };
}

/** Stores the account's credentials (all of them, or the ones named). */
export function configure(admin: Caller, account: PayPalAccount, names: Array<keyof PayPalAccount> = ['client_id', 'client_secret', 'webhook_id']): Promise<void> {
  return configureGateway(admin, 'paypal', Object.fromEntries(names.map((name) => [name, account[name]])));
}

type QhatuOrder = { id: string; total: number; currency: string };

/** Opens a payment session for the order: a PayPal order created by the server. */
export function openSession(api: Caller, order: { id: string }) {
  return api('POST', SESSIONS, { order_id: order.id, gateway: 'paypal' });
}

/** Pays the order with the PayPal order id the JS SDK hands onApprove. */
export function pay(api: Caller, order: QhatuOrder, paypalOrderId: string, extra: Record<string, unknown> = {}) {
  return api('POST', PAYMENTS, { order_id: order.id, gateway: 'paypal', amount: order.total, currency: order.currency, paypal_order_id: paypalOrderId, ...extra });
}

/** Posts a webhook delivery to a store's notification address, headers and body as PayPal sent them. */
export function notify(t: TestApp, tenantId: string, delivery: { headers: Record<string, string>; body: string }) {
  return t.request({ method: 'POST', url: `/webhooks/paypal/${tenantId}`, headers: delivery.headers, payload: delivery.body });
}

/** PayPal's `Authorization: Basic` for an app. */
export const basic = (account: PayPalAccount) => `Basic ${Buffer.from(`${account.client_id}:${account.client_secret}`).toString('base64')}`;

/** A PayPal double and the app on it, USD stores (not configured yet), and a PayPal app of someone else. */
export async function paypalStore() {
  const account = newAccount();
  const foreign = newAccount();
  return { ...(await gatewayStores(paypal, BASE_URL_VARIABLE, await new PayPalDouble([account, foreign]).start(), { currency: 'USD' })), account, foreign };
}
export type PayPalStore = Awaited<ReturnType<typeof paypalStore>>;

/** Another store in `currency` on the same app, configured with a fresh PayPal app. */
export async function storeIn(w: PayPalStore, currency: string, names?: Array<keyof PayPalAccount>) {
  const tenant = await w.t.createTenant({ currency });
  const api = caller(w.t, tenant);
  const acc = newAccount();
  w.double.addAccount(acc);
  await configure(api, acc, names);
  return { tenant, api, acc };
}
