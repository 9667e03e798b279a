import { CLOCK, linkPage, parseEnvironment, SealedLinks, Secrets, type Clock, type QhatuConfig } from '@qhatu/core';
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
  return { paymentUrl: linkPage(config, env.QHATU_ORDER_EDITS_PAYMENT_URL, PAYMENT_PATH), linkTtlDays: env.QHATU_ORDER_EDITS_LINK_TTL_DAYS };
}

export interface PaymentClaim {
  tenantId: string;
  orderId: string;
  editId: string;
  expiresAt: Date;
}

/** Links to pay what an edit left due: core's `SealedLinks`, a token of the store, the order and the edit. */
@injectable()
export class PaymentLinks {
  private readonly links: SealedLinks<'t' | 'o' | 'e'>;

  constructor(@inject(Secrets) secrets: Secrets, @inject(CLOCK) clock: Clock, @inject(ORDER_EDIT_SETTINGS) settings: OrderEditSettings) {
    this.links = new SealedLinks(secrets, clock, { purpose: 'order-edit-payment', fields: ['t', 'o', 'e'], page: settings.paymentUrl, ttlDays: settings.linkTtlDays });
  }

  link(claim: Omit<PaymentClaim, 'expiresAt'>): { url: string; expiresAt: Date } {
    return this.links.link({ t: claim.tenantId, o: claim.orderId, e: claim.editId });
  }

  /** The claim of the page behind a link: 404 PAYMENT_LINK_NOT_FOUND when forged or altered, 410 PAYMENT_LINK_EXPIRED past its date. */
  open(token: string): PaymentClaim {
    const { claim, expiresAt } = this.links.payment(token);
    return { tenantId: claim.t, orderId: claim.o, editId: claim.e, expiresAt };
  }
}
