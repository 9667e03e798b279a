import { createHmac, randomBytes, randomInt } from 'node:crypto';
import type { TestApp } from '@qhatu/core/testing';
import { configureGateway, PAYMENTS, SESSIONS, type Caller } from '@qhatu/plugin-payments/testing';
import type { Account, Card, IzipayDouble } from '../src/testing.js';

/** Where the operator points Izipay (the double, in these tests), as in production. */
export const BASE_URL_VARIABLE = 'QHATU_GATEWAY_IZIPAY_BASE_URL';

/** A shop's keys as the Back Office's REST API keys tab shows them. */
export function newAccount(): Account {
  const shop = String(randomInt(10_000_000, 99_999_999));
  return {
    shop_id: shop,
    password: `testpassword_${randomBytes(24).toString('base64url')}`,
    hmac_key: randomBytes(16).toString('hex'),
    public_key: `${shop}:testpublickey_${randomBytes(24).toString('base64url')}`,
  };
}

export const configure = (admin: Caller, account: Account) => configureGateway(admin, 'izipay', account);

type Order = { id: string; total: number; currency: string };

/** Opens the form token for an order: POST /payments/sessions. */
export async function openForm(api: Caller, order: Order): Promise<{ id: string; reference: string; client: { form_token: string; public_key: string; order_id: string } }> {
  const res = await api('POST', SESSIONS, { order_id: order.id, gateway: 'izipay' });
  if (res.statusCode !== 201) throw new Error(`session not opened: ${res.body}`);
  return res.json().data;
}

/** The payment the storefront makes with the embedded form's answer. */
export function pay(api: Caller, order: Order, browser: { uuid: string; krAnswer: string; krHash?: string }, extra: Record<string, unknown> = {}) {
  const fields: Record<string, unknown> = { kr_answer: browser.krAnswer, transaction_id: browser.uuid };
  if (browser.krHash !== undefined) fields.kr_hash = browser.krHash;
  return api('POST', PAYMENTS, { order_id: order.id, gateway: 'izipay', amount: order.total, currency: order.currency, ...fields, ...extra });
}

/** Session, embedded form, payment: what a storefront does; the payment as answered and the transaction's uuid. */
export async function checkout(api: Caller, double: IzipayDouble, order: Order, card: Card = 'accepted') {
  const session = await openForm(api, order);
  const browser = double.pay(session.client.form_token, card);
  const res = await pay(api, order, browser);
  if (res.statusCode !== 201) throw new Error(`payment not recorded: ${res.body}`);
  return { payment: res.json().data as { id: string; status: string; provider_payment_id: string; amount: number; order_id: string }, uuid: browser.uuid, session };
}

/** A form post as Lyra sends it (IPN or browser return). */
export function krPost(krAnswer: string, krHash: string, hashKey = 'password', algorithm = 'sha256_hmac'): string {
  return new URLSearchParams({ 'kr-hash': krHash, 'kr-hash-algorithm': algorithm, 'kr-hash-key': hashKey, 'kr-answer-type': 'V4/Payment', 'kr-answer': krAnswer }).toString();
}

export const sign = (key: string, krAnswer: string) => createHmac('sha256', key).update(krAnswer, 'utf8').digest('hex');

export function notify(t: TestApp, url: string, body: string, contentType = 'application/x-www-form-urlencoded') {
  return t.request({ method: 'POST', url, headers: { 'content-type': contentType }, payload: body });
}
