import { Database, Mailer, MailTexts, type MailDefinition } from '@qhatu/core';
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

/** The mail of each step, as the store may write it per locale (`/api/v1/mail-texts`, decision 0098): `returns.requested`, ... */
export const noticeKey = (event: (typeof NOTIFIED_EVENTS)[number]) => `returns.${event.split('.').pop()}`;

const COMMON = {
  store: "The store's name",
  return_name: 'The return, as the customer sees it (R12)',
  kind: 'return, exchange or claim',
  order_number: 'The number of the order (without #)',
  items: 'The items returned, a line each (- 2 × Alpaca scarf)',
};

/** Each step's mail, with the placeholders a store's text of it may use. */
export const RETURN_MAILS: MailDefinition[] = [
  { key: noticeKey(RETURN_REQUESTED), description: 'A return, exchange or claim was asked for', variables: COMMON },
  {
    key: noticeKey(RETURN_APPROVED),
    description: 'The store approved it (what to send back, and what to pay for an exchange that costs more)',
    variables: { ...COMMON, amount_due: 'What the customer pays for the new items of an exchange (PEN 12.50), empty when nothing', payment_url: 'Where the customer pays it, empty when nothing' },
  },
  { key: noticeKey(RETURN_REJECTED), description: 'The store did not approve it', variables: { ...COMMON, reason: "The store's reason, empty when none was given" } },
  { key: noticeKey(RETURN_CANCELLED), description: 'It was cancelled', variables: COMMON },
  { key: noticeKey(RETURN_RECEIVED), description: 'The store received the items', variables: { ...COMMON, received_items: 'The items received, a line each (- 2 × Alpaca scarf)' } },
  {
    key: noticeKey(RETURN_REFUNDED),
    description: 'The store refunded it',
    variables: { ...COMMON, amount: 'The amount refunded (PEN 12.50)', refund_method: "payment, store_credit or account: where the money went" },
  },
  {
    key: noticeKey(RETURN_SHIPPED),
    description: 'The replacement or new items were shipped',
    variables: { ...COMMON, shipped_items: 'The items shipped, a line each', tracking: 'The carrier and tracking number, empty when none' },
  },
];

/** The values of a step's placeholders. */
function variablesOf(c: Context) {
  const returned = c.lines.filter((l) => l.kind === 'returned');
  return {
    store: c.store,
    return_name: returnName(c.ret),
    kind: what(c.ret),
    order_number: c.order.number,
    items: items(c).join('\n'),
    amount_due: c.ret.amountDue > 0 && c.ret.paymentUrl ? money(c.ret.amountDue, c.ret.currency) : '',
    payment_url: c.ret.amountDue > 0 && c.ret.paymentUrl ? c.ret.paymentUrl : '',
    reason: c.ret.rejectReason ?? '',
    received_items: returned.map((l) => `- ${l.receivedQuantity} × ${l.title}`).join('\n'),
    amount: money(c.ret.refundAmount, c.ret.currency),
    refund_method: c.ret.refundMethod ?? '',
    shipped_items: c.lines.filter((l) => l.shippedQuantity > 0).map((l) => `- ${l.shippedQuantity} × ${l.title}`).join('\n'),
    tracking: c.ret.shipment?.tracking_number ? `${c.ret.shipment.carrier ?? ''} ${c.ret.shipment.tracking_number}`.trim() : '',
  };
}

/** Each step's built-in message (a store without a text of its own sends it): subject and body. */
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
    @inject(MailTexts) private readonly texts: MailTexts,
  ) {}

  async send(type: string, data: { id?: unknown }): Promise<void> {
    const message = MESSAGES[type as (typeof NOTIFIED_EVENTS)[number]];
    if (!message || typeof data.id !== 'string') return;
    const id = data.id;
    const event = type as (typeof NOTIFIED_EVENTS)[number];
    const mail = await this.db.tenant(async (tx) => {
      const { em, tenantId } = tx;
      const ret = await em.findOne(Return, { id });
      const order = ret && (await em.findOne(Order, { id: ret.orderId }));
      if (!ret || !order) return null;
      const lines = await em.find(ReturnLine, { returnId: ret.id }, { orderBy: { position: 'asc' } });
      // The store's name and the customer's locale (none without a customer: the store's default) in one statement.
      const [store] = await tx.query<{ name: string; locale: string | null }>(
        `select t.name, (select c.locale from customers_customer c where c.tenant_id = t.id and c.id = ?) as locale from core_tenant t where t.id = ?`,
        [ret.customerId, tenantId],
      );
      const context: Context = { ret, lines, order, store: store.name };
      const { subject, text } = message(context);
      const builtIn = { subject: `${context.store}: ${subject}`, text: ['Hello,', '', ...text, ''].join('\n') };
      return { to: ret.email, tenantId, ...(await this.texts.compose(tx, noticeKey(event), store.locale, variablesOf(context), builtIn)) };
    });
    if (!mail) return;
    await this.mailer.send({ tenantId: mail.tenantId, to: mail.to, subject: mail.subject, text: mail.text, ...(mail.html === undefined ? {} : { html: mail.html }) });
  }
}
