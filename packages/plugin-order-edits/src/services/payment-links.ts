import { CLOCK, parseEnvironment, Secrets, type Clock, type QhatuConfig } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { z } from 'zod';

const Env = z.object({
  QHATU_ORDER_EDITS_PAYMENT_URL: z.url({ protocol: /^https?$/ }).max(2000).optional(),
  QHATU_ORDER_EDITS_LINK_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
});

export interface OrderEditSettings {
  /** The page a payment link opens, `{token}` standing for the token. */
  paymentUrl: string;
  linkTtlDays: number;
}

export const ORDER_EDIT_SETTINGS = Symbol.for('qhatu.order-edits.settings');

/** The endpoint a payment link opens when the platform names no storefront page for it. */
export const PAYMENT_PATH = '/api/v1/order-edits/payment';

export function readSettings(config: QhatuConfig): OrderEditSettings {
  const env = parseEnvironment(config.environment, Env);
  const url = env.QHATU_ORDER_EDITS_PAYMENT_URL ?? `${config.publicUrl.replace(/\/+$/, '')}${PAYMENT_PATH}`;
  return { paymentUrl: url.includes('{token}') ? url : `${url}${url.includes('?') ? '&' : '?'}token={token}`, linkTtlDays: env.QHATU_ORDER_EDITS_LINK_TTL_DAYS };
}

export interface PaymentClaim {
  tenantId: string;
  orderId: string;
  editId: string;
  expiresAt: Date;
}

/** Links to pay what an edit left due: a sealed token (core's `Secrets`) of the store, the order and the edit, in the payment page. */
@injectable()
export class PaymentLinks {
  constructor(
    @inject(Secrets) private readonly secrets: Secrets,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(ORDER_EDIT_SETTINGS) private readonly settings: OrderEditSettings,
  ) {}

  link(claim: Omit<PaymentClaim, 'expiresAt'>): { url: string; expiresAt: Date } {
    const expiresAt = new Date(this.clock.now().getTime() + this.settings.linkTtlDays * 86_400_000);
    const token = this.secrets.seal(JSON.stringify({ p: 'order-edit-payment', t: claim.tenantId, o: claim.orderId, e: claim.editId, x: expiresAt.getTime() }));
    return { url: this.settings.paymentUrl.replaceAll('{token}', encodeURIComponent(token)), expiresAt };
  }

  /** What a genuine token says (`expired` past its date); null when forged or altered. */
  read(token: string): (PaymentClaim & { expired: boolean }) | null {
    let claim: { p?: unknown; t?: unknown; o?: unknown; e?: unknown; x?: unknown };
    try {
      claim = JSON.parse(this.secrets.open(token));
    } catch {
      return null;
    }
    if (claim.p !== 'order-edit-payment' || typeof claim.t !== 'string' || typeof claim.o !== 'string' || typeof claim.e !== 'string' || typeof claim.x !== 'number') return null;
    return { tenantId: claim.t, orderId: claim.o, editId: claim.e, expiresAt: new Date(claim.x), expired: claim.x <= this.clock.now().getTime() };
  }
}
