import { LockMode } from '@mikro-orm/core';
import { Database, hasPermission, TenantContext, type Principal, type Tx } from '@qhatu/core';
import { Order } from '@qhatu/plugin-orders';
import {
  Payment, type ChargeRequest, type ChargeResult, type GatewayContext, type LookupRequest, type PaymentGateway, type RefundRequest, type RefundResult,
} from '@qhatu/plugin-payments';
import { inject, injectable } from 'tsyringe';
import { StoreCreditEntry } from './entities/entry.js';
import { StoreCreditPayment } from './entities/payment.js';
import { InsufficientCredit, StoreCreditLedger } from './services/ledger.js';

export const STORE_CREDIT_GATEWAY = 'store-credit';
/** The permission a staff member needs to adjust balances and to pay a customer's order with the customer's credit. */
export const ADJUST_PERMISSION = 'store-credit.adjust';

/** ISO 4217 as core's currency check reads it: a balance exists in whatever currency credit was given in. */
const ANY_CURRENCY: readonly string[] = [...new Set([...Intl.supportedValuesOf('currency'), 'XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XPD', 'XPT', 'XTS', 'XUA', 'XXX'])].sort();

const failed = (failureReason: string): ChargeResult => ({ status: 'failed', providerPaymentId: null, failureReason });
const NOT_REACHED = 'The debit never reached the store-credit ledger: nothing was taken from the balance';

/**
 * Store credit as a gateway: the ledger is the provider. A charge debits the balance of the order's
 * customer at once (paid) or is refused with the reason (failed); a refund gives the amount back to
 * that balance. The debit and the record of what the ledger answered the payment are written in one
 * transaction under the payment's row lock, so a repeat, a look-up after a lost answer and the
 * debit itself see one another: a payment is debited once or never.
 */
@injectable()
export class StoreCreditGateway implements PaymentGateway {
  readonly id = STORE_CREDIT_GATEWAY;
  readonly name = 'Store credit';
  readonly currencies = ANY_CURRENCY;
  readonly paymentFields = [];
  readonly credentialFields = [];
  // No provider: nothing to point elsewhere.
  readonly defaultBaseUrl = '';
  // A charge checks who asks, which only the first request can tell: a lost answer is looked up, never repeated.
  readonly idempotent = { charge: false, refund: true };

  constructor(
    @inject(Database) private readonly db: Database,
    @inject(StoreCreditLedger) private readonly ledger: StoreCreditLedger,
  ) {}

  async charge(ctx: GatewayContext, req: ChargeRequest): Promise<ChargeResult> {
    const principal = TenantContext.principal();
    return this.db.tenant(async (tx) => {
      await lockPayment(tx, req.paymentId);
      const kept = await tx.em.findOne(StoreCreditPayment, { paymentId: req.paymentId }, { refresh: true });
      if (kept) return answerOf(kept);
      const order = await tx.em.findOne(Order, { id: req.orderId });
      const refusal = refusalOf(principal, order?.customerId ?? null) ?? currencyRefusal(order!.currency.trim(), req.currency);
      if (refusal) return this.record(tx, req.paymentId, null, refusal);
      try {
        // The balance in the order's currency, and only it: credit in another currency never pays (no conversion).
        const { entry } = await this.ledger.apply(tx, {
          customerId: order!.customerId!, currency: order!.currency.trim(), kind: 'spend', amount: -req.amount, reason: `Payment of order #${order!.number}`,
          source: { type: 'payment', id: req.paymentId }, paymentId: req.paymentId, orderId: req.orderId,
        });
        return this.record(tx, req.paymentId, entry.id, null);
      } catch (error) {
        if (!(error instanceof InsufficientCredit)) throw error;
        return this.record(tx, req.paymentId, null, error.message);
      }
    }, ctx.tenantId);
  }

  /**
   * A charge whose answer was lost: what the ledger answered, or, when the debit never happened, the
   * payment is closed to it (under the payment's lock, so that a late first call finds it closed).
   */
  async lookup(ctx: GatewayContext, req: LookupRequest): Promise<ChargeResult | null> {
    return this.db.tenant(async (tx) => {
      await lockPayment(tx, req.paymentId);
      const kept = await tx.em.findOne(StoreCreditPayment, { paymentId: req.paymentId }, { refresh: true });
      if (kept) return answerOf(kept);
      await this.record(tx, req.paymentId, null, NOT_REACHED);
      return null;
    }, ctx.tenantId);
  }

  async status(ctx: GatewayContext, providerPaymentId: string): Promise<ChargeResult> {
    return this.db.tenant(async (tx) => {
      const entry = await tx.em.findOne(StoreCreditEntry, { id: providerPaymentId, kind: 'spend' });
      return entry ? { status: 'paid', providerPaymentId, method: STORE_CREDIT_GATEWAY } : failed('No store-credit debit is recorded for this payment');
    }, ctx.tenantId);
  }

  /** Gives the amount back to the balance the payment was taken from; once per refund, however often asked. */
  async refund(ctx: GatewayContext, req: RefundRequest): Promise<RefundResult> {
    return this.db.tenant(async (tx) => {
      const spent = await tx.em.findOne(StoreCreditEntry, { id: req.providerPaymentId, kind: 'spend' });
      if (!spent) return { status: 'failed', providerRefundId: null, failureReason: 'No store-credit debit is recorded for this payment' };
      const { entry } = await this.ledger.apply(tx, {
        customerId: spent.customerId, currency: spent.currency, kind: 'restore', amount: req.amount,
        reason: req.reason ? `Refund: ${req.reason}`.slice(0, 500) : 'Refund of a store-credit payment',
        source: { type: 'payment_refund', id: req.refundId }, paymentId: spent.paymentId ?? null, orderId: spent.orderId ?? null,
      });
      return { status: 'refunded', providerRefundId: entry.id };
    }, ctx.tenantId);
  }

  // Nothing outside Qhatu sends notifications about store credit: every one is refused.
  verifyNotification(): boolean {
    return false;
  }

  parseNotification(): null {
    return null;
  }

  private async record(tx: Tx, paymentId: string, entryId: string | null, failureReason: string | null): Promise<ChargeResult> {
    await tx.query(`insert into store_credit_payment (tenant_id, payment_id, entry_id, failure_reason, created_at) values (?, ?, ?, ?, ?)`, [
      tx.tenantId, paymentId, entryId, failureReason, tx.now(),
    ]);
    return answerOf({ entryId, failureReason });
  }
}

/** What the ledger answered a payment, as the payments plugin reads a provider's answer. */
function answerOf(kept: Pick<StoreCreditPayment, 'entryId' | 'failureReason'>): ChargeResult {
  return kept.entryId
    ? { status: 'paid', providerPaymentId: kept.entryId, method: STORE_CREDIT_GATEWAY }
    : { ...failed(kept.failureReason ?? NOT_REACHED), method: STORE_CREDIT_GATEWAY };
}

async function lockPayment(tx: Tx, id: string): Promise<void> {
  await tx.em.findOne(Payment, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
}

/** A payment in another currency than its order's (the payments plugin refuses it first): never paid from another balance. */
function currencyRefusal(orderCurrency: string, paymentCurrency: string): string | null {
  return orderCurrency === paymentCurrency ? null : `Store credit pays the order in its own currency, ${orderCurrency}, from the balance in ${orderCurrency}`;
}

/**
 * Why the caller may not spend the order's customer's credit, or null: the signed-in customer
 * pays their own orders, staff holding `store-credit.adjust` (and admin keys) any customer's order;
 * a storefront key, which any shopper holds, never spends anyone's credit.
 */
function refusalOf(principal: Principal | undefined, customerId: string | null): string | null {
  if (!customerId) return 'The order names no customer: store credit pays only orders of a customer with a balance';
  if (principal?.kind === 'customer') return principal.subjectId === customerId ? null : "Store credit pays only the signed-in customer's own orders";
  if (principal?.kind === 'admin' || principal?.kind === 'staff') {
    return hasPermission(principal, ADJUST_PERMISSION) ? null : `Paying with a customer's store credit needs the permission ${ADJUST_PERMISSION}`;
  }
  return 'Store credit is spent by the signed-in customer (a customer token) or by the store’s staff, not with a storefront key';
}
