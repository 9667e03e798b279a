import type { IncomingHttpHeaders } from 'node:http';
import { AppError, CLOCK, Database, LOGGER, type Clock } from '@qhatu/core';
import type { Logger } from 'pino';
import { inject, injectable } from 'tsyringe';
import { Payment } from '../entities/payment.js';
import { Refund } from '../entities/refund.js';
import type { ChargeResult, GatewayContext, InboundNotification, ParsedNotification, PaymentGateway, RefundResult } from '../gateway.js';
import { GatewaySettings } from './gateway-settings.js';
import { Gateways } from './gateways.js';
import { lockPayment, Payments } from './payments.js';
import { Refunds } from './refunds.js';

export type NotificationOutcome = 'processed' | 'duplicate' | 'ignored';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
    const gateway = this.gateways.get(gatewayId);
    if (!UUID.test(tenantId)) throw AppError.validation('The notification address must end with the store id (UUID)', [{ path: 'params.tenant_id', message: 'must be a UUID' }]);
    const tenant = tenantId.toLowerCase();
    const ctx = await this.db.tenant((tx) => this.settings.context(tx, gateway, { forNewPayments: false }), tenant).catch((error: unknown) => {
      // An unknown store and a store without this gateway look the same from outside.
      if (error instanceof AppError && error.code === 'GATEWAY_NOT_CONFIGURED') throw new AppError(404, 'NOT_FOUND', 'No such notification endpoint');
      throw error;
    });
    const inbound: InboundNotification = { rawBody, headers, query, now: this.clock.now() };
    if (!gateway.verifyNotification(ctx, inbound)) throw new AppError(401, 'INVALID_SIGNATURE', `The ${gateway.name} signature is missing or does not match`);
    const parsed = gateway.parseNotification(inbound);
    if (!parsed) throw AppError.validation(`Not a ${gateway.name} notification this store understands`);
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
