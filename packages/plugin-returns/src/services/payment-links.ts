import { AppError, CLOCK, CONFIG, Database, parseEnvironment, Secrets, Tenant, type Clock, type QhatuConfig } from '@qhatu/core';
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
 * Links to pay what an exchange costs more than what came back: a sealed token (core's `Secrets`)
 * naming the store and the return, in the storefront's payment page (`QHATU_RETURNS_PAYMENT_URL`,
 * `{token}` in it or `?token=` added) or this service's own page.
 */
@injectable()
export class ReturnPaymentLinks {
  private readonly url: string;
  private readonly ttlDays: number;

  constructor(
    @inject(Secrets) private readonly secrets: Secrets,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(CONFIG) config: QhatuConfig,
    @inject(Database) private readonly db: Database,
  ) {
    const env = parseEnvironment(config.environment, Env);
    const url = env.QHATU_RETURNS_PAYMENT_URL ?? `${config.publicUrl.replace(/\/+$/, '')}${PAYMENT_PATH}`;
    this.url = url.includes('{token}') ? url : `${url}${url.includes('?') ? '&' : '?'}token={token}`;
    this.ttlDays = env.QHATU_RETURNS_LINK_TTL_DAYS;
  }

  link(claim: { tenantId: string; returnId: string }): { url: string; expiresAt: Date } {
    const expiresAt = new Date(this.clock.now().getTime() + this.ttlDays * 86_400_000);
    const token = this.secrets.seal(JSON.stringify({ p: 'return-payment', t: claim.tenantId, r: claim.returnId, x: expiresAt.getTime() }));
    return { url: this.url.replaceAll('{token}', encodeURIComponent(token)), expiresAt };
  }

  /**
   * The page behind a link: the token is the credential and names the store. Forged or altered:
   * 404 PAYMENT_LINK_NOT_FOUND; past its date: 410 PAYMENT_LINK_EXPIRED.
   */
  async view(token: string) {
    let claim: { p?: unknown; t?: unknown; r?: unknown; x?: unknown };
    const notFound = () => AppError.notFound('Payment link', 'PAYMENT_LINK_NOT_FOUND');
    try {
      claim = JSON.parse(this.secrets.open(token));
    } catch {
      throw notFound();
    }
    if (claim.p !== 'return-payment' || typeof claim.t !== 'string' || typeof claim.r !== 'string' || typeof claim.x !== 'number') throw notFound();
    if (claim.x <= this.clock.now().getTime()) throw new AppError(410, 'PAYMENT_LINK_EXPIRED', 'The payment link has expired; ask the store for a new one', [{ path: 'token', message: 'expired' }]);
    const { t: tenantId, r: returnId, x } = claim as { t: string; r: string; x: number };
    return this.db.tenant(async ({ em }) => {
      const ret = await em.findOne(Return, { id: returnId });
      const order = ret && (await em.findOne(Order, { id: ret.orderId }));
      if (!ret || !order) throw notFound();
      const store = await em.findOneOrFail(Tenant, { id: tenantId });
      return {
        tenant_id: store.id, store_name: store.name, return_id: ret.id, return_number: returnName(ret), order_id: order.id, order_number: order.number,
        currency: ret.currency.trim(), amount_due: ret.amountDue, amount_paid: ret.amountPaid, expires_at: new Date(x).toISOString(),
      };
    }, tenantId);
  }
}
