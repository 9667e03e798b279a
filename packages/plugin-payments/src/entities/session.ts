import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A payment session: the provider's server-side step before its browser form can pay an order. */
export const PaymentSession = defineEntity({
  name: 'PaymentSession',
  tableName: 'payments_session',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    orderId: p.uuid(),
    gateway: p.string(),
    /** The provider's reference (a session key, a form token, an order id, a nonce). */
    reference: p.string(),
    /** The session's number from one sequence of all stores (see `SessionRequest.number`). */
    number: p.bigint('number').nullable(),
    amount: p.bigint('number'),
    currency: p.string(),
    /** What the browser needs; never a secret. */
    client: p.json<Record<string, unknown>>(),
    /** What the gateway keeps for the charge (a purchase number). */
    data: p.json<Record<string, unknown>>(),
    returnUrl: p.string().nullable(),
    /** The payment that used the session; a session pays once. */
    paymentId: p.uuid().nullable(),
    expiresAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});
export type PaymentSession = InferEntity<typeof PaymentSession>;
