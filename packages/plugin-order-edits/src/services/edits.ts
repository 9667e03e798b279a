import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AppError, Database, Mailer, paginate, Tenant, TenantContext, type Page, type PageRequest, type Tx } from '@qhatu/core';
import { reviseRedemption } from '@qhatu/plugin-discounts';
import { amountDue, isCovered, Order, OrderReads, Orders, waivedBy, type RevisedLine } from '@qhatu/plugin-orders';
import { inject, injectable } from 'tsyringe';
import { OrderEdit, type EditLine } from '../entities/order-edit.js';
import { EDIT_CREATED, editEvent, orderEditMachine } from '../machines/order-edit.js';
import type { EditCreate } from '../schemas/order-edit.js';
import { couponOf } from './coupons.js';
import { PaymentLinks } from './payment-links.js';
import { EditPreviews } from './preview.js';

export const editNotFound = () => AppError.notFound('Order edit', 'ORDER_EDIT_NOT_FOUND');

/** `1234` PEN → `PEN 12.34`: the currency's own number of decimals. */
function money(minor: number, currency: string): string {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  return `${currency} ${(minor / 10 ** digits).toFixed(digits)}`;
}

/**
 * Edits of orders: made as a preview (nothing of the order changes), then confirmed, which applies
 * them through the orders plugin (`Orders.revise`, the order row locked: an edit racing a
 * fulfilment or another edit finds the order changed, 409 ORDER_CHANGED) and keeps the edit as a
 * version of the order; or cancelled.
 */
@injectable()
export class OrderEdits {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(OrderReads) private readonly reads: OrderReads,
    @inject(Orders) private readonly orders: Orders,
    @inject(EditPreviews) private readonly previews: EditPreviews,
    @inject(PaymentLinks) private readonly links: PaymentLinks,
    @inject(Mailer) private readonly mailer: Mailer,
  ) {}

  /** Previews an edit of the order (404 ORDER_NOT_FOUND for any other store's). */
  async create(orderId: string, input: EditCreate): Promise<OrderEdit> {
    return this.db.tenant(async (tx) => {
      const { order, lines } = await this.reads.get(orderId);
      const preview = await this.previews.preview(tx, order, lines, input);
      const paid = order.amountPaid - order.amountRefunded;
      // As `Orders.revise` will: what refunds outside an edit left it short of is given up first, never more than it will cost.
      const waived = Math.min(order.amountWaived + waivedBy(order), preview.after.total);
      const owed = preview.after.total - waived - paid;
      const at = tx.now();
      const edit = tx.em.create(OrderEdit, {
        id: randomUUID(), tenantId: tx.tenantId, orderId: order.id, status: 'open', version: null, changes: input.changes,
        shipping: preview.shipping, shippingChanged: preview.shippingChanged, before: preview.before, after: preview.after,
        orderUpdatedAt: order.updatedAt, currency: order.currency.trim(), amountPaid: paid,
        difference: preview.after.total - preview.before.total, amountDue: owed > 0 && asksForPayment(order, order.amountWaived + waivedBy(order)) ? owed : 0, refundAmount: Math.max(0, -owed),
        note: input.note ?? null, paymentUrl: null, createdBy: TenantContext.principalId(), confirmedBy: null, confirmedAt: null, cancelledAt: null,
        createdAt: at, updatedAt: at,
      });
      tx.publish(EDIT_CREATED, editEvent(edit));
      return edit;
    });
  }

  /**
   * open → confirmed: the order takes the previewed lines and shipping, its stock moves with them,
   * and the edit becomes its next version. What the customer then owes is asked for with a
   * payment link (e-mailed unless `notify` is false); what the order's payments brought in beyond
   * its total goes back by a job on `order-edits.edit.confirmed`, through those payments.
   */
  async confirm(id: string, input: { notify: boolean }): Promise<OrderEdit> {
    return this.db.tenant(async (tx) => {
      const edit = await lockEdit(tx, id);
      if (!orderEditMachine.can(edit, 'confirm')) await orderEditMachine.apply(tx, edit, 'confirm');
      // The order row first: edits and fulfilments of one order queue here, and take versions in turn.
      await tx.em.findOne(Order, { id: edit.orderId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
      const version = await nextVersion(tx, edit.orderId);
      const { order } = await this.orders.revise(tx, edit.orderId, {
        basedOn: edit.orderUpdatedAt,
        lines: revisedLines(edit.after.lines),
        shipping: { total: edit.after.shipping_total, tax: edit.after.shipping_tax },
        note: `edit ${version}: ${summary(edit)}${edit.note ? ` (${edit.note})` : ''}`,
      });
      Object.assign(edit, { version, confirmedBy: TenantContext.principalId(), confirmedAt: tx.now(), updatedAt: tx.now() });
      await recordCoupon(tx, edit);
      // One shipped before it was paid owes it too, but the courier collects it: no link.
      if ((order.status === 'pending' || order.status === 'confirmed') && amountDue(order) > 0) await this.askForPayment(tx, edit, order, input.notify);
      return orderEditMachine.apply(tx, edit, 'confirm');
    });
  }

  /** open → cancelled: the preview is dropped; the order never changed. */
  async cancel(id: string): Promise<OrderEdit> {
    return this.db.tenant(async (tx) => {
      const edit = await lockEdit(tx, id);
      if (orderEditMachine.can(edit, 'cancel')) Object.assign(edit, { cancelledAt: tx.now(), updatedAt: tx.now() });
      return orderEditMachine.apply(tx, edit, 'cancel');
    });
  }

  async get(id: string): Promise<OrderEdit> {
    return this.db.tenant(async ({ em }) => {
      const edit = await em.findOne(OrderEdit, { id });
      if (!edit) throw editNotFound();
      return edit;
    });
  }

  /** The order's edits, oldest first: its confirmed ones are its versions (404 ORDER_NOT_FOUND for another store's order). */
  async list(orderId: string, page: Omit<PageRequest, 'sort'>): Promise<Page<OrderEdit>> {
    await this.reads.get(orderId);
    return this.db.tenant(({ em }) => paginate(em, OrderEdit, { orderId }, { ...page, sort: 'created_at' }));
  }

  /** A link to pay what is due on the order now, kept on the edit; e-mailed to the order's customer inside the transaction (502 when it cannot be). */
  private async askForPayment(tx: Tx, edit: OrderEdit, order: Order, notify: boolean): Promise<void> {
    const { url, expiresAt } = this.links.link({ tenantId: tx.tenantId, orderId: order.id, editId: edit.id });
    edit.paymentUrl = url;
    if (!notify) return;
    const store = await tx.em.findOneOrFail(Tenant, { id: tx.tenantId });
    const due = money(amountDue(order), edit.currency);
    const text = [
      'Hello,',
      '',
      `${store.name} changed your order #${order.number}: ${summary(edit)}.`,
      `Its total is now ${money(order.total, edit.currency)}; ${due} is left to pay.`,
      '',
      'Pay it here:',
      url,
      '',
      `The link works until ${expiresAt.toISOString().slice(0, 10)}.`,
    ].join('\n');
    try {
      await this.mailer.send({ tenantId: tx.tenantId, to: order.customerEmail, subject: `${store.name}: your order #${order.number} changed, ${due} to pay`, text });
    } catch (error) {
      throw new AppError(502, 'MAIL_DELIVERY_FAILED', 'The e-mail asking for the payment could not be sent; nothing was changed', [
        { message: error instanceof Error ? error.message : String(error) },
      ]);
    }
  }
}

/**
 * Whether an order that costs more after an edit awaits what it owes, as `Orders.revise` decides:
 * one awaiting payment does, and so does one its payments covered, once what refunds outside an
 * edit took is given up (`waived`): it awaits payment again. One shipped before it was paid is
 * collected by the courier.
 */
function asksForPayment(order: Order, waived: number): boolean {
  return order.status === 'pending' || order.status === 'confirmed' || isCovered({ ...order, amountWaived: waived });
}

/**
 * The coupon's use follows the confirmed edit: it records what the coupon takes off now, or is
 * released (the coupon's uses_count goes down) once the coupon no longer applies to the order.
 */
async function recordCoupon(tx: Tx, edit: OrderEdit): Promise<void> {
  const [was, now] = [edit.before.coupon, edit.after.coupon];
  if (!now || (now.applies && was?.amount === now.amount && was.applies)) return;
  const coupon = await couponOf(tx, edit.orderId);
  if (coupon?.code === now.code) await reviseRedemption(tx, edit.orderId, coupon.id, now.applies ? now.amount : null);
}

async function lockEdit(tx: Tx, id: string): Promise<OrderEdit> {
  const edit = await tx.em.findOne(OrderEdit, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!edit) throw editNotFound();
  return edit;
}

/** The order's next version (its row locked by the caller). */
async function nextVersion(tx: Tx, orderId: string): Promise<number> {
  const [row] = await tx.query<{ next: number }>('select coalesce(max(version), 0) + 1 as next from order_edits_edit where tenant_id = ? and order_id = ?', [tx.tenantId, orderId]);
  return Number(row.next);
}

/** The previewed lines as the orders plugin applies them: the kept ones by id, the new ones with their catalog facts. */
function revisedLines(lines: EditLine[]): RevisedLine[] {
  return lines
    .filter((l) => l.change !== 'removed')
    .map((l) => {
      const common = { quantity: l.quantity, discount: l.discount_amount, tax: { taxClass: l.tax_class, rate: l.tax_rate, amount: l.tax_amount } };
      if (l.line_item_id) return { lineId: l.line_item_id, ...common };
      return {
        ...common, variantId: l.variant_id, productId: l.product_id, title: l.title, variantTitle: l.variant_title, sku: l.sku,
        requiresShipping: l.requires_shipping, unitPrice: l.unit_price, offerId: l.offer_id ?? null,
      };
    });
}

/** What changed, in a line: `+2 Poncho, Scarf 3 → 1, −Hat, shipping 15.00 → 30.00`. */
export function summary(edit: OrderEdit): string {
  const before = new Map(edit.before.lines.map((l) => [l.line_item_id, l.quantity]));
  const parts = edit.after.lines.flatMap((l) => {
    if (l.change === 'added') return [`+${l.quantity} ${l.title}`];
    if (l.change === 'removed') return [`−${l.title}`];
    if (l.change === 'changed' && before.get(l.line_item_id) !== l.quantity) return [`${l.title} ${before.get(l.line_item_id)} → ${l.quantity}`];
    return [];
  });
  const [was, now] = [edit.before.coupon, edit.after.coupon];
  if (was && now && (was.amount !== now.amount || was.applies !== now.applies)) {
    parts.push(now.applies ? `coupon ${now.code} ${money(was.amount, edit.currency)} → ${money(now.amount, edit.currency)}` : `coupon ${now.code} no longer applies`);
  }
  if (edit.shippingChanged) parts.push(`shipping ${money(edit.before.shipping_total, edit.currency)} → ${money(edit.after.shipping_total, edit.currency)}`);
  return parts.join(', ');
}
