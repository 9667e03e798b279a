import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AppError, CONFIG, Database, LOGGER, TenantContext, type QhatuConfig, type Tx } from '@qhatu/core';
import type { Logger } from 'pino';
import { inject, injectable } from 'tsyringe';
import { PaymentSession } from '../entities/session.js';
import type { PaymentGateway, SessionResult, StoredSession } from '../gateway.js';
import { amountStillDue, exceedsBalance, lockOrderToPay } from './balance.js';
import { GatewaySettings } from './gateway-settings.js';
import { Gateways } from './gateways.js';

export interface SessionInput {
  order_id: string;
  gateway: string;
  client_ip?: string;
  /** Part of what is due (a split payment); what is due when absent. */
  amount?: number;
  return_url?: string;
}


/**
 * Payment sessions: the server-side step some providers need before their browser form can pay
 * (a session key, a form token, a provider order). Opened for what is still due on the order; a session
 * pays once, the order it was opened for and nothing else.
 */
@injectable()
export class Sessions {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Gateways) private readonly gateways: Gateways,
    @inject(GatewaySettings) private readonly settings: GatewaySettings,
    @inject(CONFIG) private readonly config: QhatuConfig,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  async open(input: SessionInput): Promise<PaymentSession> {
    const gateway = this.gateways.installed(input.gateway);
    if (!gateway.createSession) {
      throw AppError.unprocessable('GATEWAY_SESSION_UNSUPPORTED', `${gateway.name} needs no payment session: its browser library tokenises the card with the public key alone`, [
        { path: 'body.gateway', message: 'opens no session' },
      ]);
    }
    const id = randomUUID();
    const tenantId = TenantContext.tenantId();
    const { ctx, order, amount, number } = await this.db.tenant(async (tx) => {
      const ctx = await this.settings.context(tx, gateway, { forNewPayments: true });
      const order = await lockOrderToPay(tx, input.order_id);
      if (order.total <= 0) throw AppError.conflict('The order totals nothing: there is nothing to pay', 'ORDER_NOT_PAYABLE');
      const due = await amountStillDue(tx, order);
      if (due <= 0) {
        throw AppError.conflict('Nothing is left to pay: the payments of the order, those in progress included, cover its total', 'ORDER_NOT_PAYABLE', [
          { path: 'body.order_id', message: 'nothing is due', order_total: order.total },
        ]);
      }
      if (input.amount !== undefined && input.amount > due) throw exceedsBalance(due, order);
      if (!gateway.currencies.includes(order.currency)) {
        throw AppError.validation(`${gateway.name} does not take ${order.currency}`, [{ path: 'body.gateway', message: `takes ${gateway.currencies.slice(0, 5).join(', ')}${gateway.currencies.length > 5 ? ', ...' : ''}` }]);
      }
      const [{ number }] = await tx.em.execute<Array<{ number: string }>>(`SELECT nextval('payments_session_number') AS number`);
      return { ctx, order, amount: input.amount ?? due, number: Number(number) };
    });
    let opened: SessionResult;
    try {
      opened = await gateway.createSession(ctx, {
        sessionId: id,
        number,
        orderId: order.id,
        amount,
        currency: order.currency,
        customerEmail: order.customerEmail || null,
        clientIp: input.client_ip ?? null,
        callbackUrl: `${this.config.publicUrl}/webhooks/${gateway.id}/${tenantId}?session=${id}`,
      });
    } catch (error) {
      if (error instanceof AppError) throw error;
      this.logger.warn({ err: error, gateway: gateway.id, orderId: order.id }, 'payment session not opened');
      throw new AppError(502, 'GATEWAY_UNAVAILABLE', `${gateway.name} could not open a payment session; retry later`);
    }
    return this.db.tenant(async (tx) =>
      tx.em.create(PaymentSession, {
        id, tenantId: tx.tenantId, orderId: order.id, gateway: gateway.id, reference: opened.reference, number, amount, currency: order.currency,
        client: opened.client, data: opened.data ?? {}, returnUrl: input.return_url ?? null, paymentId: null, expiresAt: opened.expiresAt ?? null, createdAt: tx.now(),
      }),
    );
  }

  /** The session a payment paid, as `charge` receives it. */
  async stored(tx: Tx, id: string): Promise<StoredSession | null> {
    const session = await tx.em.findOne(PaymentSession, { id });
    return session && { id: session.id, reference: session.reference, data: session.data, amount: session.amount, currency: session.currency };
  }

  async get(id: string): Promise<PaymentSession> {
    const session = await this.db.tenant(({ em }) => em.findOne(PaymentSession, { id }));
    if (!session) throw AppError.notFound('Payment session', 'PAYMENT_SESSION_NOT_FOUND');
    return session;
  }

  /**
   * The session a new payment names (by the gateway's `sessionField`), locked and claimed for
   * it: same order, amount and currency, not expired, not used. Null when the payment names
   * none and the gateway does not require one.
   */
  async claim(tx: Tx, gateway: PaymentGateway, payment: { id: string; orderId: string; amount: number; currency: string }, fields: Record<string, unknown>): Promise<StoredSession | null> {
    const field = gateway.sessionField;
    if (!field) return null;
    const reference = fields[field];
    const path = `body.${field}`;
    const session = typeof reference === 'string'
      ? await tx.em.findOne(PaymentSession, { gateway: gateway.id, reference }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true })
      : null;
    if (!session) {
      if (!gateway.sessionRequired) return null;
      throw AppError.unprocessable('PAYMENT_SESSION_INVALID', `No ${gateway.name} payment session of this store has that ${field}: open one with POST /api/v1/payments/sessions`, [{ path, message: 'unknown session' }]);
    }
    const wrong = (message: string) => AppError.unprocessable('PAYMENT_SESSION_INVALID', `The ${gateway.name} payment session ${message}`, [{ path, message }]);
    if (session.orderId !== payment.orderId) throw wrong('was opened for another order');
    if (session.amount !== payment.amount || session.currency !== payment.currency) {
      throw wrong(`was opened for ${session.amount} ${session.currency}, not ${payment.amount} ${payment.currency}`);
    }
    if (session.expiresAt && session.expiresAt.getTime() <= tx.now().getTime()) throw wrong('has expired; open a new one');
    if (session.paymentId) throw AppError.conflict(`The ${gateway.name} payment session was already used by payment ${session.paymentId}; open a new one`, 'PAYMENT_SESSION_USED');
    session.paymentId = payment.id;
    return { id: session.id, reference: session.reference, data: session.data, amount: session.amount, currency: session.currency };
  }
}
