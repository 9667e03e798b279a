import type { GatewaySetting } from '../entities/gateway-setting.js';
import type { Payment } from '../entities/payment.js';
import { refundableOf } from '../machines/payment.js';
import { unconfirmed, type Refund } from '../entities/refund.js';
import type { PaymentSession } from '../entities/session.js';
import type { PaymentGateway } from '../gateway.js';

const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;

export function refundOut(r: Refund) {
  return {
    id: r.id,
    payment_id: r.paymentId,
    amount: r.amount,
    tax_amount: r.taxAmount,
    reason: r.reason ?? null,
    status: r.status,
    provider_refund_id: r.providerRefundId ?? null,
    failure_reason: r.failureReason ?? null,
    unconfirmed: unconfirmed(r),
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

/** A payment as answered; `refunds` are all of its refunds (a payment that was pending until now has none). */
export function paymentOut(p: Payment, refunds: Refund[] = []) {
  return {
    id: p.id,
    order_id: p.orderId,
    gateway: p.gateway,
    amount: p.amount,
    currency: p.currency,
    status: p.status,
    method: p.method ?? null,
    provider_payment_id: p.providerPaymentId ?? null,
    failure_reason: p.failureReason ?? null,
    next_action: p.nextAction ?? null,
    refunded_amount: p.refundedAmount,
    refundable_amount: refundableOf(p, refunds),
    captured_at: iso(p.capturedAt),
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
    refunds: refunds.map(refundOut),
  };
}

/** A gateway as the store sees it: never a secret credential. */
export function gatewayOut(g: PaymentGateway, setting: GatewaySetting | null | undefined, notificationUrl: string) {
  return {
    id: g.id,
    name: g.name,
    currencies: [...g.currencies],
    payment_fields: g.paymentFields.map(({ name, type, required, description }) => ({ name, type, required, description })),
    credential_fields: g.credentialFields.map(({ name, required, secret, description }) => ({ name, required, secret, description })),
    configured: Boolean(setting),
    enabled: setting?.enabled ?? false,
    public_credentials: setting?.publicCredentials ?? {},
    notification_url: notificationUrl,
    session: g.createSession ? { field: g.sessionField ?? null, required: Boolean(g.sessionRequired) } : null,
  };
}

export function sessionOut(s: PaymentSession) {
  return {
    id: s.id,
    gateway: s.gateway,
    order_id: s.orderId,
    amount: s.amount,
    currency: s.currency.trim(),
    reference: s.reference,
    client: s.client,
    return_url: s.returnUrl ?? null,
    payment_id: s.paymentId ?? null,
    expires_at: iso(s.expiresAt),
    created_at: s.createdAt.toISOString(),
  };
}
