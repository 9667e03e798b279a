import type { TestApp } from '@qhatu/core/testing';
import { configureGateway, ok, PAYMENTS, SESSIONS, type Caller } from '@qhatu/plugin-payments/testing';
import { CARDS, type FlexClient, type PaymeDouble } from '../src/testing.js';

/** Where the operator points Pay-me (the double, in these tests), as in production. */
export const BASE_URL_VARIABLE = 'QHATU_GATEWAY_PAYME_BASE_URL';

export interface PaymeAccount {
  client_id: string;
  client_secret: string;
  merchant_code: string;
  alignet_public_key: string;
}

/** A merchant the double knows, with Alignet's notification key as the store configures it. */
export function newAccount(double: PaymeDouble): PaymeAccount {
  return { ...double.newMerchant(), alignet_public_key: double.publicKeyPem };
}

export const configure = (admin: Caller, account: PaymeAccount) => configureGateway(admin, 'payme', account);

export interface Session {
  id: string;
  reference: string;
  amount: number;
  currency: string;
  client: FlexClient;
}

export async function openSession(api: Caller, orderId: string): Promise<Session> {
  return ok(await api('POST', SESSIONS, { order_id: orderId, gateway: 'payme' }), 201);
}

/** POST /payments naming the Flex charge and the session it was made in. */
export function pay(api: Caller, order: { id: string; total: number; currency: string }, session: Session, chargeId: string) {
  return api('POST', PAYMENTS, { order_id: order.id, gateway: 'payme', amount: order.total, currency: order.currency, charge_id: chargeId, merchant_operation_number: session.reference });
}

/** The shopper's whole checkout on Pay-me: session, Flex charge with `pan`, then POST /payments. */
export async function checkout(double: PaymeDouble, api: Caller, order: { id: string; total: number; currency: string }, pan: string = CARDS.APPROVED) {
  const session = await openSession(api, order.id);
  const { chargeId } = await double.pay(session.client, pan);
  const res = await pay(api, order, session, chargeId);
  return { session, chargeId, res };
}

/** Posts a notification as Pay-me does: the JSON body and its `signature` header. */
export function notify(t: TestApp, tenantId: string, n: { body: string; signature?: string }) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (n.signature !== undefined) headers.signature = n.signature;
  return t.request({ method: 'POST', url: tenantId.startsWith('/') ? tenantId : `/webhooks/payme/${tenantId}`, headers, payload: n.body });
}
