import { Database, Mailer, Tenant } from '@qhatu/core';
import { Order } from '@qhatu/plugin-orders';
import { inject, injectable } from 'tsyringe';
import { Return, ReturnLine } from '../entities/return.js';
import { RETURN_APPROVED, RETURN_CANCELLED, RETURN_RECEIVED, RETURN_REFUNDED, RETURN_REJECTED, RETURN_REQUESTED, RETURN_SHIPPED } from '../machines/return.js';
import { money, returnName } from './common.js';

/** The events a customer is e-mailed about. */
export const NOTIFIED_EVENTS = [RETURN_REQUESTED, RETURN_APPROVED, RETURN_REJECTED, RETURN_CANCELLED, RETURN_RECEIVED, RETURN_REFUNDED, RETURN_SHIPPED] as const;

interface Context {
  ret: Return;
  lines: ReturnLine[];
  order: Order;
  store: string;
}

const what = (r: Return) => (r.kind === 'claim' ? 'claim' : r.kind === 'exchange' ? 'exchange' : 'return');
const items = (c: Context) => c.lines.filter((l) => l.kind === 'returned').map((l) => `- ${l.quantity} × ${l.title}`);

/** Each step's message: subject and body. */
const MESSAGES: Record<(typeof NOTIFIED_EVENTS)[number], (c: Context) => { subject: string; text: string[] }> = {
  [RETURN_REQUESTED]: (c) => ({
    subject: `We received your ${what(c.ret)} request ${returnName(c.ret)}`,
    text: [`Your ${what(c.ret)} request ${returnName(c.ret)} for order #${c.order.number} is with ${c.store}:`, ...items(c), '', 'We will write again once it is reviewed.'],
  }),
  [RETURN_APPROVED]: (c) => ({
    subject: `Your ${what(c.ret)} ${returnName(c.ret)} was approved`,
    text: [
      `${c.store} approved your ${what(c.ret)} ${returnName(c.ret)} for order #${c.order.number}.`,
      ...(c.ret.kind === 'claim' ? [] : ['', 'Send these items back:', ...items(c), '', c.ret.shipping?.method === 'store_label'
        ? `The store pays the return label (${c.ret.shipping.carrier}, ${c.ret.shipping.service}); it comes in a separate message or with your parcel.`
        : 'Send them by a carrier of your choice; the return shipping is yours.']),
      ...(c.ret.amountDue > 0 && c.ret.paymentUrl ? ['', `The new items cost ${money(c.ret.amountDue, c.ret.currency)} more than what you return. Pay it here:`, c.ret.paymentUrl] : []),
    ],
  }),
  [RETURN_REJECTED]: (c) => ({
    subject: `Your ${what(c.ret)} ${returnName(c.ret)} was not approved`,
    text: [`${c.store} did not approve your ${what(c.ret)} ${returnName(c.ret)} for order #${c.order.number}.`, ...(c.ret.rejectReason ? ['', `Reason: ${c.ret.rejectReason}`] : [])],
  }),
  [RETURN_CANCELLED]: (c) => ({
    subject: `Your ${what(c.ret)} ${returnName(c.ret)} was cancelled`,
    text: [`Your ${what(c.ret)} ${returnName(c.ret)} for order #${c.order.number} was cancelled.`],
  }),
  [RETURN_RECEIVED]: (c) => ({
    subject: `We received the items of ${returnName(c.ret)}`,
    text: [`${c.store} received the items of your ${what(c.ret)} ${returnName(c.ret)}:`, ...c.lines.filter((l) => l.kind === 'returned').map((l) => `- ${l.receivedQuantity} × ${l.title}`)],
  }),
  [RETURN_REFUNDED]: (c) => ({
    subject: `${money(c.ret.refundAmount, c.ret.currency)} refunded for ${returnName(c.ret)}`,
    text: [
      `${c.store} refunded ${money(c.ret.refundAmount, c.ret.currency)} for your ${what(c.ret)} ${returnName(c.ret)} of order #${c.order.number},`,
      c.ret.refundMethod === 'store_credit'
        ? 'as store credit on your account.'
        : c.ret.refundMethod === 'account' && c.ret.accountAmount === c.ret.refundAmount
          ? 'off what your company owes for the order on account.'
          : c.ret.refundMethod === 'account'
            ? `${money(c.ret.accountAmount, c.ret.currency)} off what your company owes for the order on account, the rest to the payment you made.`
            : 'to the payment you made; your bank may take a few days to show it.',
    ],
  }),
  [RETURN_SHIPPED]: (c) => ({
    subject: `Your ${c.ret.kind === 'claim' ? 'replacement' : 'new items'} for ${returnName(c.ret)} shipped`,
    text: [
      `${c.store} shipped:`,
      ...c.lines.filter((l) => l.shippedQuantity > 0).map((l) => `- ${l.shippedQuantity} × ${l.title}`),
      ...(c.ret.shipment?.tracking_number ? ['', `Tracking: ${c.ret.shipment.carrier ?? ''} ${c.ret.shipment.tracking_number}`.trim()] : []),
    ],
  }),
};

/**
 * E-mails the customer at each step of a return (a job queued with the step's event, so a mail
 * server that is down delays the message, never the return); sent through core's `Mailer`.
 */
@injectable()
export class ReturnNotices {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Mailer) private readonly mailer: Mailer,
  ) {}

  async send(type: string, data: { id?: unknown }): Promise<void> {
    const message = MESSAGES[type as (typeof NOTIFIED_EVENTS)[number]];
    if (!message || typeof data.id !== 'string') return;
    const id = data.id;
    const context = await this.db.tenant(async ({ em, tenantId }) => {
      const ret = await em.findOne(Return, { id });
      const order = ret && (await em.findOne(Order, { id: ret.orderId }));
      if (!ret || !order) return null;
      const lines = await em.find(ReturnLine, { returnId: ret.id }, { orderBy: { position: 'asc' } });
      const store = await em.findOneOrFail(Tenant, { id: tenantId });
      return { ret, lines, order, store: store.name, tenantId };
    });
    if (!context) return;
    const { subject, text } = message(context);
    await this.mailer.send({ tenantId: context.tenantId, to: context.ret.email, subject: `${context.store}: ${subject}`, text: ['Hello,', '', ...text, ''].join('\n') });
  }
}
