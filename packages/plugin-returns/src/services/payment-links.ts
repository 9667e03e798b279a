import { CLOCK, CONFIG, Database, linkPage, parseEnvironment, paymentLinkNotFound, SealedLinks, Secrets, Tenant, type Clock, type QhatuConfig } from '@qhatu/core';
import { Order } from '@qhatu/plugin-orders';
import { inject, injectable } from 'tsyringe';
import { z } from 'zod';
import { Return } from '../entities/return.js';
import { returnName } from './common.js';

const Env = z.object({
  QHATU_RETURNS_PAYMENT_URL: z.url({ protocol: /^https?$/ }).max(2000).optional(),
  QHATU_RETURNS_LINK_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
});

/** The endpoint a payment link opens when the platform names no storefront page for it. */
export const PAYMENT_PATH = '/api/v1/returns/payment';

/**
 * Links to pay what an exchange costs more than what came back: core's `SealedLinks`, a token
 * naming the store and the return, in the storefront's payment page (`QHATU_RETURNS_PAYMENT_URL`,
 * `{token}` in it or `?token=` added) or this service's own page.
 */
@injectable()
export class ReturnPaymentLinks {
  private readonly links: SealedLinks<'t' | 'r'>;

  constructor(
    @inject(Secrets) secrets: Secrets,
    @inject(CLOCK) clock: Clock,
    @inject(CONFIG) config: QhatuConfig,
    @inject(Database) private readonly db: Database,
  ) {
    const env = parseEnvironment(config.environment, Env);
    this.links = new SealedLinks(secrets, clock, {
      purpose: 'return-payment',
      fields: ['t', 'r'],
      page: linkPage(config, env.QHATU_RETURNS_PAYMENT_URL, PAYMENT_PATH),
      ttlDays: env.QHATU_RETURNS_LINK_TTL_DAYS,
    });
  }

  link(claim: { tenantId: string; returnId: string }): { url: string; expiresAt: Date } {
    return this.links.link({ t: claim.tenantId, r: claim.returnId });
  }

  /**
   * The page behind a link: the token is the credential and names the store. Forged or altered:
   * 404 PAYMENT_LINK_NOT_FOUND; past its date: 410 PAYMENT_LINK_EXPIRED.
   */
  async view(token: string) {
    const { claim, expiresAt } = this.links.payment(token);
    return this.db.tenant(async ({ em }) => {
      const ret = await em.findOne(Return, { id: claim.r });
      const order = ret && (await em.findOne(Order, { id: ret.orderId }));
      if (!ret || !order) throw paymentLinkNotFound();
      const store = await em.findOneOrFail(Tenant, { id: claim.t });
      return {
        tenant_id: store.id, store_name: store.name, return_id: ret.id, return_number: returnName(ret), order_id: order.id, order_number: order.number,
        currency: ret.currency.trim(), amount_due: ret.amountDue, amount_paid: ret.amountPaid, expires_at: expiresAt.toISOString(),
      };
    }, claim.t);
  }
}
