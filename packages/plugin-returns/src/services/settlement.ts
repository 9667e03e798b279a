import { AppError, Database, type Tx } from '@qhatu/core';
import { Fulfillments, LineOffers, Orders, type LineOffersStrategy } from '@qhatu/plugin-orders';
import { inject, injectable } from 'tsyringe';
import type { RefundMethod, Return, ReturnLine } from '../entities/return.js';
import { RETURN_SHIPPED, returnEvent, returnMachine } from '../machines/return.js';
import type { RefundInput, ShipmentInput } from '../schemas/return.js';
import { ACCOUNT_REFUNDS, type AccountRefunds } from './account-credit.js';
import { linesOfReturn, lockOrder, lockReturn, money, returnName } from './common.js';
import { PAYMENT_REFUNDER, type PaymentRefunder } from './payment-refunds.js';
import { StoreReturnSettings } from './settings.js';
import { STORE_CREDIT_GRANTS, type StoreCreditGrants } from './store-credit.js';
import { exchangeDifference, valueReturn } from './valuation.js';

/**
 * The money and goods a return ends with: its refund (worked out per line, decision 0074, and sent
 * back through the order's payments or as store credit), an exchange's difference paid, the
 * replacement or new items shipped, and closing.
 */
@injectable()
export class ReturnSettlement {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(StoreReturnSettings) private readonly settings: StoreReturnSettings,
    @inject(PAYMENT_REFUNDER) private readonly payments: PaymentRefunder,
    @inject(STORE_CREDIT_GRANTS) private readonly credit: StoreCreditGrants,
    @inject(ACCOUNT_REFUNDS) private readonly accounts: AccountRefunds,
    @inject(Orders) private readonly orders: Orders,
    @inject(Fulfillments) private readonly fulfillments: Fulfillments,
    @inject(LineOffers) private readonly offers: LineOffersStrategy,
  ) {}

  /**
   * received → refunded (a claim for money: approved → refunded). What the lines are worth back is
   * worked out under the order's lock, after what earlier returns of the same lines gave back; staff
   * may give back less (`amount`), never more (422 REFUND_AMOUNT_TOO_HIGH). Through the order's
   * payments the refunds are planned here and sent by a job once this commits; as store credit, the
   * credit is granted in this transaction; to a company's account (an order on account), the worth is
   * set against what the company owes for the order in this transaction, and what it had paid
   * already goes back through the order's payments.
   */
  async refund(id: string, input: RefundInput): Promise<Return> {
    return this.db.tenant(async (tx) => {
      const ret = await lockReturn(tx, id);
      assertRefundable(ret);
      const order = await lockOrder(tx, ret.orderId);
      const lines = await linesOfReturn(tx, ret.id);
      const settings = await this.settings.read(tx);
      const valuation = await valueReturn(tx, settings, order, ret, lines);
      let owed = valuation.items + valuation.shipping.amount;
      if (ret.kind === 'exchange') {
        const difference = await exchangeDifference(tx, settings, order, ret, lines);
        if (difference.due > 0) {
          throw AppError.conflict(`The new items cost ${money(difference.due, ret.currency)} more than what came back: it is to be paid first`, 'EXCHANGE_NOT_PAID', [
            { message: 'amount due', amount_due: difference.due },
          ]);
        }
        owed = difference.refund;
      }
      const amount = input.amount ?? owed;
      if (amount > owed) {
        throw AppError.unprocessable('REFUND_AMOUNT_TOO_HIGH', `This return gives back at most ${money(owed, ret.currency)}`, [{ path: 'body.amount', message: `must be at most ${owed}`, refundable: owed }]);
      }
      const method: RefundMethod = input.method ?? ret.refundMethod ?? 'original_payments';
      if (method === 'store_credit' && amount > 0) {
        this.credit.assertAvailable(order);
        await this.credit.grant(tx, { order, returnId: ret.id, returnName: returnName(ret), amount });
      }
      if (method === 'account') await this.accounts.assertOnAccount(tx, order, 'body.method');
      const account = method === 'account' && amount > 0 ? await this.accounts.credit(tx, { order, returnId: ret.id, returnName: returnName(ret), amount }) : null;
      const accountAmount = account?.applied ?? 0;
      const throughPayments = method === 'store_credit' ? 0 : amount - accountAmount;
      const refunds = throughPayments > 0 ? await this.payments.plan(tx, order, throughPayments) : [];
      for (const l of lines) {
        const v = valuation.lines.get(l.id);
        if (v) Object.assign(l, { refundAmount: v.amount, taxAmount: v.tax });
      }
      const at = tx.now();
      Object.assign(ret, {
        refundMethod: method, itemsAmount: valuation.items, taxAmount: valuation.tax + valuation.shipping.tax, shippingAmount: valuation.shipping.amount,
        refundAmount: amount, accountAmount, refunds, refundedAt: at, updatedAt: at,
      });
      // A marketplace's ledger follows: each returned line's vendor gives back its part (its commission reversed).
      await tx.em.flush();
      await this.offers.orderChanged(tx, order);
      await this.orders.addNote(tx, order.id, refundNote(ret, lines, method, input.note, account?.companyName));
      return returnMachine.apply(tx, ret, 'refund');
    });
  }

  /**
   * Money received for what an exchange costs more (recorded by staff, the link's payment taken
   * outside); at most what is due (422 PAYMENT_EXCEEDS_AMOUNT_DUE).
   */
  async recordPayment(id: string, input: { amount: number; reference?: string }): Promise<Return> {
    return this.db.tenant(async (tx) => {
      const ret = await lockReturn(tx, id);
      if (ret.kind !== 'exchange' || ret.amountDue === 0) {
        throw AppError.conflict('Nothing is due on this return', 'NOTHING_DUE', [{ message: 'amount due is 0', amount_due: ret.amountDue }]);
      }
      if (input.amount > ret.amountDue) {
        throw AppError.unprocessable('PAYMENT_EXCEEDS_AMOUNT_DUE', `At most ${money(ret.amountDue, ret.currency)} is due`, [{ path: 'body.amount', message: `must be at most ${ret.amountDue}`, amount_due: ret.amountDue }]);
      }
      Object.assign(ret, { amountPaid: ret.amountPaid + input.amount, amountDue: ret.amountDue - input.amount, updatedAt: tx.now() });
      await this.orders.addNote(tx, ret.orderId, `Return ${returnName(ret)}: ${money(input.amount, ret.currency)} received for the exchange${input.reference ? ` (${input.reference})` : ''}`);
      return ret;
    });
  }

  /**
   * Ships a claim's replacement or an exchange's new items as a new fulfilment of the order: the
   * units held at approval are taken out of stock. A replaced claim is closed by it; an exchange
   * ships once what it costs more is paid.
   */
  async ship(id: string, input: ShipmentInput): Promise<Return> {
    return this.db.tenant(async (tx) => {
      const ret = await lockReturn(tx, id);
      const lines = await linesOfReturn(tx, ret.id);
      const shipped = ret.kind === 'exchange' ? lines.filter((l) => l.kind === 'new') : ret.kind === 'claim' && ret.resolution === 'replace' ? lines : [];
      if (shipped.length === 0) throw AppError.conflict('Only a claim for a replacement or an exchange ships items', 'NOTHING_TO_SHIP');
      if (ret.shipment) throw AppError.conflict('This return’s items shipped already', 'ALREADY_SHIPPED', [{ message: 'shipped', shipped_at: ret.shipment.shipped_at }]);
      const allowed = ret.kind === 'claim' ? ['approved'] : ['approved', 'partially_received', 'received', 'refunded'];
      if (!allowed.includes(ret.status)) {
        throw new AppError(409, 'INVALID_STATE_TRANSITION', `Cannot ship the items of a return that is ${ret.status}`, [{ message: `allowed from: ${allowed.join(', ')}`, from: ret.status, action: 'ship' }]);
      }
      if (ret.amountDue > 0) throw AppError.conflict(`${money(ret.amountDue, ret.currency)} is still due for this exchange`, 'EXCHANGE_NOT_PAID', [{ message: 'amount due', amount_due: ret.amountDue }]);
      // A new fulfilment of the order (decision 0087): it takes the stock held at approval.
      const fulfillment = await this.fulfillments.createReplacement(tx, ret.orderId, {
        returnId: ret.id,
        carrier: input.carrier ?? null,
        trackingNumber: input.tracking_number ?? null,
        items: shipped.map((l) => ({ variantId: l.variantId ?? null, title: l.title, quantity: l.quantity })),
      });
      for (const l of shipped) l.shippedQuantity = l.quantity;
      const at = tx.now();
      ret.shipment = {
        fulfillment_id: fulfillment.id, carrier: input.carrier ?? null, tracking_number: input.tracking_number ?? null, shipped_at: at.toISOString(),
        items: shipped.filter((l) => l.variantId).map((l) => ({ line_id: l.id, variant_id: l.variantId!, quantity: l.quantity })),
      };
      ret.updatedAt = at;
      tx.publish(RETURN_SHIPPED, { ...returnEvent(ret), fulfillment_id: fulfillment.id, carrier: ret.shipment.carrier, tracking_number: ret.shipment.tracking_number, items: ret.shipment.items });
      await this.orders.addNote(tx, ret.orderId, `Return ${returnName(ret)}: ${shipped.map((l) => `${l.quantity} × ${l.title}`).join(', ')} shipped${input.tracking_number ? ` (${input.carrier ?? 'tracking'} ${input.tracking_number})` : ''}`);
      if (ret.kind === 'claim') await this.closeNow(tx, ret);
      return ret;
    });
  }

  /**
   * refunded → closed; received → closed when nothing is to go back (an exchange its new items took
   * the value of, or staff deciding no refund). An exchange closes once its new items shipped.
   */
  async close(id: string): Promise<Return> {
    return this.db.tenant(async (tx) => {
      const ret = await lockReturn(tx, id);
      if (ret.status === 'approved' && returnMachine.can(ret, 'close')) {
        throw new AppError(409, 'INVALID_STATE_TRANSITION', 'An approved return closes once its items came back and were settled (a claim, once its replacement shipped)', [{ message: 'settle it first', from: ret.status, action: 'close' }]);
      }
      if (ret.kind === 'exchange' && !ret.shipment && returnMachine.can(ret, 'close')) {
        throw AppError.conflict('The exchange’s new items have not shipped yet', 'EXCHANGE_NOT_SHIPPED', [{ message: 'ship them first' }]);
      }
      return this.closeNow(tx, ret);
    });
  }

  private async closeNow(tx: Tx, ret: Return): Promise<Return> {
    if (returnMachine.can(ret, 'close')) Object.assign(ret, { closedAt: tx.now(), updatedAt: tx.now() });
    return returnMachine.apply(tx, ret, 'close');
  }

  /** The refunds planned for a return are sent (the job queued with `returns.return.refunded`). */
  async sendRefunds(returnId: string): Promise<void> {
    await this.payments.send(returnId);
  }
}

/** A return's refund needs its items back (a claim for money: approval); 409 otherwise. */
function assertRefundable(ret: Return): void {
  const ready = ret.kind === 'claim' ? ret.status === 'approved' && ret.resolution === 'refund' : ret.status === 'received';
  if (ready) return;
  const needs = ret.kind === 'claim' ? (ret.resolution === 'refund' ? 'approved' : 'a claim for a refund') : 'received (every item in, or the receipt completed)';
  throw new AppError(409, 'INVALID_STATE_TRANSITION', `Cannot refund a return that is ${ret.status}: it must be ${needs}`, [{ message: `must be ${needs}`, from: ret.status, action: 'refund' }]);
}

/** The order's note for a refund: what came back and where the money went. */
function refundNote(ret: Return, lines: ReturnLine[], method: RefundMethod, note?: string, company?: string): string {
  const items = lines.filter((l) => l.kind === 'returned').map((l) => `${ret.kind === 'claim' ? l.quantity : l.receivedQuantity} × ${l.title}`).join(', ');
  const paid = ret.refundAmount - ret.accountAmount;
  const where = method === 'store_credit'
    ? 'as store credit'
    : method === 'account'
      ? `to ${company ?? 'the company'}’s account (${money(ret.accountAmount, ret.currency)} off what it owes${paid > 0 ? `, ${money(paid, ret.currency)} through the order’s payments` : ''})`
      : 'through the order’s payments';
  const what = ret.kind === 'claim' ? `claim (${ret.claimType})` : ret.kind;
  return `Return ${returnName(ret)} (${what}): ${items}; ${money(ret.refundAmount, ret.currency)} refunded ${where}${note ? ` (${note})` : ''}`;
}

