import type { IncomingHttpHeaders } from 'node:http';
import { AppError, CLOCK, withArticle, Database, isUuid, LOGGER, TenantContext, type Clock } from '@qhatu/core';
import type { Logger } from 'pino';
import { inject, injectable } from 'tsyringe';
import { Payment } from '../entities/payment.js';
import { Refund } from '../entities/refund.js';
import type { ChargeResult, GatewayContext, InboundNotification, ParsedNotification, PaymentGateway, RefundResult } from '../gateway.js';
import { PaymentSession } from '../entities/session.js';
import { GatewaySettings } from './gateway-settings.js';
import { Gateways } from './gateways.js';
import { lockPayment, Payments } from './payments.js';
import { Refunds } from './refunds.js';

export type NotificationOutcome = 'processed' | 'duplicate' | 'ignored';

/** What a provider's browser-form post led to (see `PaymentGateway.parseCallback`). */
export interface CallbackOutcome {
  outcome: NotificationOutcome;
  payment: Payment;
  /** Where the shopper's browser goes next: the session's return_url, with the payment named. */
  redirect: string | null;
}


/** One answer for an unknown store and a bad signature: neither path tells anything of any store. */
const unverified = (gateway: PaymentGateway) =>
  new AppError(401, 'INVALID_SIGNATURE', `The ${gateway.name} notification names no store whose credentials verify its signature`);

/**
 * Inbound gateway notifications. Nothing of the body is read before the signature is verified
 * with the tenant's own secret; the payment is then re-read from the provider, and the event id
 * is recorded in the same transaction as the move, so a duplicate or a replay changes nothing.
 */
@injectable()
export class Notifications {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Gateways) private readonly gateways: Gateways,
    @inject(GatewaySettings) private readonly settings: GatewaySettings,
    @inject(Payments) private readonly payments: Payments,
    @inject(Refunds) private readonly refunds: Refunds,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  async receive(gatewayId: string, tenantId: string, rawBody: Buffer, headers: IncomingHttpHeaders, query = new URLSearchParams()): Promise<NotificationOutcome> {
    const { gateway, tenant, ctx } = await this.endpoint(gatewayId, tenantId);
    const inbound: InboundNotification = { rawBody, headers, query, now: this.clock.now() };
    if (!(await gateway.verifyNotification(ctx, inbound))) throw new AppError(401, 'INVALID_SIGNATURE', `The ${gateway.name} signature is missing or does not match`);
    return this.process(gateway, tenant, ctx, inbound);
  }

  /**
   * A notification on the specification's bare `/webhooks/<gateway>`: the store is the one the
   * address's `tenant` parameter names or, without it, the store whose payment or refund the
   * notification names (the platform-level index); only a store whose own credentials verify the
   * signature takes it. A store that cannot be found and a signature that does not verify are the
   * same 401, so nothing is learnt of any store; nothing is processed.
   */
  async receiveForAnyStore(gatewayId: string, rawBody: Buffer, headers: IncomingHttpHeaders, query: URLSearchParams): Promise<NotificationOutcome> {
    const gateway = this.gateways.get(gatewayId);
    const inbound: InboundNotification = { rawBody, headers, query, now: this.clock.now() };
    for (const tenant of await this.storesNamedBy(gateway, inbound)) {
      const ctx = await this.contextOf(gateway, tenant);
      if (ctx && (await gateway.verifyNotification(ctx, inbound))) return this.process(gateway, tenant, ctx, inbound);
    }
    throw unverified(gateway);
  }

  /** A provider form's post back on the bare path: the store from `tenant`, or from the session it names. */
  async callbackForAnyStore(gatewayId: string, rawBody: Buffer, headers: IncomingHttpHeaders, query: URLSearchParams): Promise<CallbackOutcome> {
    const gateway = this.gateways.get(gatewayId);
    const named = query.get('tenant');
    const session = query.get('session');
    const [tenant] = named !== null ? (isUuid(named) ? [named.toLowerCase()] : []) : session && isUuid(session) ? await this.lookUp(gateway, 'session', session.toLowerCase()) : [];
    if (!tenant || !(await this.contextOf(gateway, tenant))) throw unverified(gateway);
    return this.callback(gatewayId, tenant, rawBody, headers, query);
  }

  /**
   * The stores a notification may be for: the `tenant` of its address, or those holding the
   * provider's payment (or refund) it names. Reading it before the signature is verified serves
   * only to find whose credentials verify it; a body that cannot be read is a 400.
   */
  private async storesNamedBy(gateway: PaymentGateway, inbound: InboundNotification): Promise<string[]> {
    const named = inbound.query.get('tenant');
    if (named !== null) return isUuid(named) ? [named.toLowerCase()] : [];
    let parsed: ParsedNotification | null;
    try {
      parsed = gateway.parseNotification(inbound);
    } catch {
      parsed = null;
    }
    if (!parsed) throw AppError.validation(`Not ${withArticle(gateway.name)} notification: its body cannot be read`);
    if (parsed.providerPaymentId) {
      const stores = await this.lookUp(gateway, 'payment', parsed.providerPaymentId);
      if (stores.length > 0) return stores;
    }
    return parsed.providerRefundId ? this.lookUp(gateway, 'refund', parsed.providerRefundId) : [];
  }

  /** The platform-level index: the stores holding this provider reference (a few at most). */
  private async lookUp(gateway: PaymentGateway, kind: 'payment' | 'refund' | 'session', reference: string): Promise<string[]> {
    const rows = await this.db.platform(({ em }) =>
      em.execute<Array<{ tenant_id: string }>>(
        `select tenant_id from payments_provider_ref where gateway = ? and kind = ? and reference = ? limit 5`,
        [gateway.id, kind, reference],
      ),
    );
    return rows.map((r) => r.tenant_id);
  }

  /** The store's credentials for the gateway; null when it has none (or is no store). */
  private async contextOf(gateway: PaymentGateway, tenant: string): Promise<GatewayContext | null> {
    return this.db.tenant((tx) => this.settings.context(tx, gateway, { forNewPayments: false }), tenant).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'GATEWAY_NOT_CONFIGURED') return null;
      throw error;
    });
  }

  /** A verified notification: parsed, the payment or refund re-read from the provider, then moved once. */
  private async process(gateway: PaymentGateway, tenant: string, ctx: GatewayContext, inbound: InboundNotification): Promise<NotificationOutcome> {
    const parsed = gateway.parseNotification(inbound);
    if (!parsed) throw AppError.validation(`Not ${withArticle(gateway.name)} notification this store understands`);
    if (parsed.providerRefundId && gateway.refundStatus) return this.refundNotification(gateway, ctx, tenant, parsed as ParsedNotification & { providerRefundId: string });
    if (!parsed.providerPaymentId) return 'ignored';

    const known = await this.db.tenant(({ em }) => em.findOne(Payment, { gateway: gateway.id, providerPaymentId: parsed.providerPaymentId }), tenant);
    // Not ours (yet): not recorded, so the provider's retry may still find the payment.
    if (!known) return 'ignored';
    let state: ChargeResult;
    try {
      state = await gateway.status(ctx, parsed.providerPaymentId);
    } catch (error) {
      this.logger.warn({ err: error, gateway: gateway.id, eventId: parsed.eventId }, 'payment not re-read for a notification');
      throw new AppError(502, 'GATEWAY_UNAVAILABLE', `${gateway.name} could not be reached to confirm the notification; retry later`);
    }
    return this.db.tenant(async (tx) => {
      if (!(await this.record(tx.em, tx.tenantId, gateway.id, parsed.eventId, known.id, tx.now()))) return 'duplicate';
      await this.payments.applyCharge(tx, await lockPayment(tx, known.id), state);
      return 'processed';
    }, tenant);
  }

  /** True when the gateway's notifications are its browser form's posts (Niubiz). */
  isCallback(gatewayId: string): boolean {
    return Boolean(this.gateways.find(gatewayId)?.parseCallback);
  }

  /**
   * A provider's browser form posting the outcome back to the session's address: nothing in the
   * post is trusted; the payment it leads to is charged on the provider, which is the proof. A
   * second post for a session already used changes nothing and answers with that payment.
   */
  async callback(gatewayId: string, tenantId: string, rawBody: Buffer, headers: IncomingHttpHeaders, query: URLSearchParams): Promise<CallbackOutcome> {
    const { gateway, tenant } = await this.endpoint(gatewayId, tenantId);
    const parsed = gateway.parseCallback!({ rawBody, headers, query, now: this.clock.now() });
    if (!parsed) throw AppError.validation(`Not ${withArticle(gateway.name)} form post this store understands`);
    if (!isUuid(parsed.sessionId)) throw AppError.validation('The callback address must name the payment session', [{ path: 'query.session', message: 'must be a UUID' }]);
    const session = await this.db.tenant(({ em }) => em.findOne(PaymentSession, { id: parsed.sessionId, gateway: gateway.id }), tenant);
    if (!session) throw AppError.notFound('Payment session', 'PAYMENT_SESSION_NOT_FOUND');
    const redirect = (payment: Payment) => {
      if (!session.returnUrl) return null;
      const url = new URL(session.returnUrl);
      url.searchParams.set('payment_id', payment.id);
      url.searchParams.set('status', payment.status);
      return url.toString();
    };
    const used = async () => {
      const payment = await this.db.tenant(({ em }) => em.findOne(Payment, { sessionId: session.id }), tenant);
      return payment ? { outcome: 'duplicate' as const, payment, redirect: redirect(payment) } : null;
    };
    if (session.paymentId) {
      const done = await used();
      if (done) return done;
    }
    const scope = { ...TenantContext.current(), tenantId: tenant };
    try {
      const payment = await TenantContext.run(scope, () =>
        this.payments.create({
          ...parsed.fields,
          order_id: session.orderId,
          gateway: gateway.id,
          amount: session.amount,
          currency: session.currency.trim(),
          ...(gateway.sessionField ? { [gateway.sessionField]: session.reference } : {}),
        }),
      );
      return { outcome: 'processed', payment, redirect: redirect(payment) };
    } catch (error) {
      // Two posts at once: the second finds the session taken by the first.
      if (error instanceof AppError && error.code === 'PAYMENT_SESSION_USED') {
        const done = await used();
        if (done) return done;
      }
      throw error;
    }
  }

  /** The gateway and the store a notification address names, with the store's credentials. */
  private async endpoint(gatewayId: string, tenantId: string) {
    const gateway = this.gateways.get(gatewayId);
    if (!isUuid(tenantId)) throw AppError.validation('The notification address must end with the store id (UUID)', [{ path: 'params.tenant_id', message: 'must be a UUID' }]);
    const tenant = tenantId.toLowerCase();
    const ctx = await this.db.tenant((tx) => this.settings.context(tx, gateway, { forNewPayments: false }), tenant).catch((error: unknown) => {
      // An unknown store and a store without this gateway look the same from outside, and as on the bare path.
      if (error instanceof AppError && error.code === 'GATEWAY_NOT_CONFIGURED') throw unverified(gateway);
      throw error;
    });
    return { gateway, tenant, ctx };
  }

  /** A refund's outcome: the refund re-read from the provider, then moved with the event id recorded. */
  private async refundNotification(gateway: PaymentGateway, ctx: GatewayContext, tenant: string, parsed: ParsedNotification & { providerRefundId: string }): Promise<NotificationOutcome> {
    const known = await this.db.tenant(({ em }) => em.findOne(Refund, { providerRefundId: parsed.providerRefundId }), tenant);
    if (!known) return 'ignored';
    let state: RefundResult;
    try {
      state = await gateway.refundStatus!(ctx, parsed.providerRefundId);
    } catch (error) {
      this.logger.warn({ err: error, gateway: gateway.id, eventId: parsed.eventId }, 'refund not re-read for a notification');
      throw new AppError(502, 'GATEWAY_UNAVAILABLE', `${gateway.name} could not be reached to confirm the notification; retry later`);
    }
    return this.db.tenant(async (tx) => {
      if (!(await this.record(tx.em, tx.tenantId, gateway.id, parsed.eventId, known.paymentId, tx.now()))) return 'duplicate';
      const payment = await lockPayment(tx, known.paymentId);
      const refund = (await tx.em.findOne(Refund, { id: known.id }, { refresh: true }))!;
      await this.refunds.apply(tx, payment, refund, state);
      return 'processed';
    }, tenant);
  }

  /** True the first time this event id is seen for the store and gateway. */
  private async record(em: { execute: (sql: string, params: unknown[]) => Promise<unknown[]> }, tenantId: string, gateway: string, eventId: string, paymentId: string, at: Date): Promise<boolean> {
    const recorded = await em.execute(
      `insert into payments_notification (tenant_id, gateway, event_id, payment_id, received_at) values (?, ?, ?, ?, ?)
         on conflict do nothing returning event_id`,
      [tenantId, gateway, eventId, paymentId, at],
    );
    return recorded.length > 0;
  }
}
