import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AppError, assertPermission, Database, Mailer, Tenant, TenantContext, type Tx } from '@qhatu/core';
import { Customer } from '@qhatu/plugin-customers';
import { amountDue, Order, Orders } from '@qhatu/plugin-orders';
import { inject, injectable } from 'tsyringe';
import { DraftOrder, type DraftLine } from '../entities/draft-order.js';
import { DRAFT_CREATED, DRAFT_UPDATED, draftEvent, draftOrderMachine } from '../machines/draft-order.js';
import { MAX_LINES, type DiscountInput, type DraftComplete, type DraftCreate, type DraftLineInput, type DraftLinePatch, type DraftPatch, type InvoiceSend, type ShippingInput } from '../schemas/draft-order.js';
import { InvoiceLinks } from './invoice-links.js';
import { invoiceMail } from './invoice-mail.js';
import { DRAFT_PAYMENTS, type DraftPaymentRecorder } from './offline-payments.js';
import { DraftPlacement, storePrices } from './placement.js';
import { DraftPricing } from './pricing.js';
import { StoreDraftSettings } from './settings.js';

/** Setting a price other than the customer's: a catalog line's, a custom shipping price, a manual discount. */
export const OVERRIDE_PERMISSION = 'draft-orders.override-price';

export const draftNotFound = () => AppError.notFound('Draft order', 'DRAFT_ORDER_NOT_FOUND');
const lineNotFound = () => AppError.notFound('Line of the draft', 'LINE_NOT_FOUND');
const DAY_MS = 86_400_000;
const MAX_QUANTITY = 10_000;

/** Order states in which the draft's order still awaits its payment. */
const AWAITING_PAYMENT = new Set(['pending', 'confirmed']);

/** 403 unless the caller may set prices (checked before anything changes). */
function assertOverride(): string | null {
  return assertPermission(TenantContext.principal(), OVERRIDE_PERMISSION).id;
}

/**
 * Draft orders: the only writer of drafts. Every change locks the draft's row, is allowed while it
 * is open, prices the whole draft again (a change the store cannot price is refused whole) and
 * publishes draft-orders.draft.updated. Sending the invoice or completing places the order.
 */
@injectable()
export class DraftOrders {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(DraftPricing) private readonly pricing: DraftPricing,
    @inject(DraftPlacement) private readonly placement: DraftPlacement,
    @inject(Orders) private readonly orders: Orders,
    @inject(Mailer) private readonly mailer: Mailer,
    @inject(InvoiceLinks) private readonly links: InvoiceLinks,
    @inject(StoreDraftSettings) private readonly settings: StoreDraftSettings,
    @inject(DRAFT_PAYMENTS) private readonly payments: DraftPaymentRecorder,
  ) {}

  async create(input: DraftCreate): Promise<DraftOrder> {
    return this.db.tenant(async (tx) => {
      const store = await tx.em.findOneOrFail(Tenant, { id: tx.tenantId });
      const at = tx.now();
      const draft = tx.em.create(DraftOrder, {
        id: randomUUID(), tenantId: tx.tenantId, number: await nextNumber(tx), status: 'open', customerId: null, email: null,
        currency: store.currency.trim(), lines: [], shippingAddress: null, shipping: null, discount: null, note: null,
        subtotal: 0, discountTotal: 0, shippingTotal: 0, taxTotal: 0, shippingTax: 0, pricesIncludeTax: false, total: 0,
        orderId: null, invoiceUrl: null, invoiceSentAt: null, completedAt: null, cancelledAt: null, cancelReason: null,
        createdBy: TenantContext.principalId(), createdAt: at, updatedAt: at,
      });
      await applyPatch(tx, draft, input);
      (input.line_items ?? []).forEach((line, n) => addLine(draft, line, `body.line_items.${n}`));
      await this.reprice(tx, draft, input.discount);
      tx.publish(DRAFT_CREATED, draftEvent(draft));
      return draft;
    });
  }

  async update(id: string, patch: DraftPatch): Promise<DraftOrder> {
    return this.change(id, async (tx, draft) => {
      await applyPatch(tx, draft, patch);
      return patch.discount ?? undefined;
    });
  }

  async addLine(id: string, input: DraftLineInput): Promise<DraftOrder> {
    return this.change(id, async (_tx, draft) => {
      addLine(draft, input, 'body');
      return undefined;
    });
  }

  async updateLine(id: string, lineId: string, patch: DraftLinePatch): Promise<DraftOrder> {
    return this.change(id, async (_tx, draft) => {
      const line = draft.lines.find((l) => l.id === lineId);
      if (!line) throw lineNotFound();
      draft.lines = draft.lines.map((l) => (l.id === lineId ? patchedLine(l, patch) : l));
      return undefined;
    });
  }

  async removeLine(id: string, lineId: string): Promise<DraftOrder> {
    return this.change(id, async (_tx, draft) => {
      if (!draft.lines.some((l) => l.id === lineId)) throw lineNotFound();
      draft.lines = draft.lines.filter((l) => l.id !== lineId);
      return undefined;
    });
  }

  /**
   * open → invoice_sent: the order is placed (an invoice sent again keeps it, while it awaits
   * payment) and a link to pay it made for the store's invoice page; with `notify` it is e-mailed,
   * inside the transaction (a failed send changes nothing: 502 MAIL_DELIVERY_FAILED). An order of
   * total 0 is paid as it is placed: the draft is completed instead, and nothing is sent.
   */
  async sendInvoice(id: string, input: InvoiceSend): Promise<DraftOrder> {
    return this.db.tenant(async (tx) => {
      const draft = await lockDraft(tx, id);
      assertCan(draft, 'send_invoice');
      const order = draft.orderId ? await awaitingPayment(tx, draft.orderId) : await this.placement.place(tx, draft);
      const at = tx.now();
      if (order.status === 'paid') return this.completeNow(tx, draft);
      const settings = await this.settings.read(tx);
      const expiresAt = new Date(at.getTime() + settings.linkTtlDays * DAY_MS);
      draft.invoiceUrl = this.links.link(settings.invoiceUrl, { tenantId: tx.tenantId, draftId: draft.id, orderId: order.id, expiresAt });
      draft.invoiceSentAt = at;
      draft.updatedAt = at;
      await draftOrderMachine.apply(tx, draft, 'send_invoice');
      if (!input.notify) return draft;
      await tx.em.flush();
      const store = await tx.em.findOneOrFail(Tenant, { id: tx.tenantId });
      const mail = invoiceMail({ store: store.name, draft, orderNumber: order.number, link: draft.invoiceUrl, expiresAt, subject: input.subject, message: input.message });
      try {
        await this.mailer.send({ tenantId: tx.tenantId, to: input.to ?? draft.email!, ...mail });
      } catch (error) {
        throw new AppError(502, 'MAIL_DELIVERY_FAILED', 'The invoice e-mail could not be sent; nothing was changed', [
          { message: error instanceof Error ? error.message : String(error) },
        ]);
      }
      return draft;
    });
  }

  /**
   * open | invoice_sent → completed: the order is placed (if the invoice did not already). With
   * `payment`, checked first, what is due on it is recorded as received by an offline method in the
   * same transaction (its payment and receipt), which pays it: the order, its payment and the draft
   * commit together or not at all. Without `payment` the order is left awaiting its payment (cash on
   * delivery).
   */
  async complete(id: string, input: DraftComplete): Promise<DraftOrder> {
    return this.db.tenant(async (tx) => {
      const draft = await lockDraft(tx, id);
      assertCan(draft, 'complete');
      if (input.payment) await this.payments.check(input.payment, draft.currency);
      const order = draft.orderId ? await awaitingPayment(tx, draft.orderId) : await this.placement.place(tx, draft);
      const due = amountDue(order);
      if (input.payment && due > 0) await this.payments.record(tx, order, due, input.payment);
      return this.completeNow(tx, draft);
    });
  }

  /** invoice_sent → open, to change it again: its order, unpaid, is cancelled (its stock given back) and its link stops working. */
  async reopen(id: string): Promise<DraftOrder> {
    return this.db.tenant(async (tx) => {
      const draft = await lockDraft(tx, id);
      assertCan(draft, 'reopen');
      await this.cancelOrder(tx, draft, 'draft order reopened');
      Object.assign(draft, { orderId: null, invoiceUrl: null, updatedAt: tx.now() });
      return draftOrderMachine.apply(tx, draft, 'reopen');
    });
  }

  /** open | invoice_sent → cancelled; an unpaid order of it is cancelled with it. */
  async cancel(id: string, reason?: string): Promise<DraftOrder> {
    return this.db.tenant(async (tx) => {
      const draft = await lockDraft(tx, id);
      assertCan(draft, 'cancel');
      await this.cancelOrder(tx, draft, reason ? `draft order cancelled: ${reason}` : 'draft order cancelled');
      Object.assign(draft, { invoiceUrl: null, cancelledAt: tx.now(), cancelReason: reason ?? null, updatedAt: tx.now() });
      return draftOrderMachine.apply(tx, draft, 'cancel');
    });
  }

  /** The `orders.order.paid` job: the draft whose invoice it paid is completed. Safe to run twice. */
  async orderPaid(data: { id?: unknown }): Promise<DraftOrder | null> {
    if (typeof data.id !== 'string') return null;
    const orderId = data.id;
    return this.db.tenant(async (tx) => {
      const draft = await tx.em.findOne(DraftOrder, { orderId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
      if (!draft || draft.status !== 'invoice_sent') return draft;
      return this.completeNow(tx, draft);
    });
  }

  /** The `orders.order.cancelled` job: a draft whose invoiced order was cancelled elsewhere is open again. */
  async orderCancelled(data: { id?: unknown }): Promise<DraftOrder | null> {
    if (typeof data.id !== 'string') return null;
    const orderId = data.id;
    return this.db.tenant(async (tx) => {
      const draft = await tx.em.findOne(DraftOrder, { orderId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
      if (!draft || draft.status !== 'invoice_sent') return draft;
      Object.assign(draft, { orderId: null, invoiceUrl: null, updatedAt: tx.now() });
      return draftOrderMachine.apply(tx, draft, 'reopen');
    });
  }

  private async completeNow(tx: Tx, draft: DraftOrder): Promise<DraftOrder> {
    Object.assign(draft, { completedAt: tx.now(), updatedAt: tx.now() });
    return draftOrderMachine.apply(tx, draft, 'complete');
  }

  /** Cancels the draft's order through the orders plugin, only while nothing was paid for it (409 DRAFT_ORDER_PAID). */
  private async cancelOrder(tx: Tx, draft: DraftOrder, reason: string): Promise<void> {
    if (!draft.orderId) return;
    const order = await tx.em.findOne(Order, { id: draft.orderId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (!order || order.status === 'cancelled') return;
    if (order.amountPaid > order.amountRefunded || !AWAITING_PAYMENT.has(order.status)) {
      throw AppError.conflict('Money was received for this draft’s order: it stays as it is (refund or edit the order instead)', 'DRAFT_ORDER_PAID', [
        { path: 'params.id', message: `its order is ${order.status}`, order_id: order.id, amount_paid: order.amountPaid },
      ]);
    }
    await this.orders.cancel(order.id, reason);
  }

  /** Locks the draft, checks it may change, lets `mutate` change it, prices it again and publishes the change. */
  private async change(id: string, mutate: (tx: Tx, draft: DraftOrder) => Promise<DiscountInput | undefined>): Promise<DraftOrder> {
    return this.db.tenant(async (tx) => {
      const draft = await lockDraft(tx, id);
      assertCan(draft, 'edit');
      const discount = await mutate(tx, draft);
      await this.reprice(tx, draft, discount);
      tx.publish(DRAFT_UPDATED, draftEvent(draft));
      return draft;
    });
  }

  /** Prices the draft and stores it; a coupon given in this request must apply now (422 COUPON_INVALID). */
  private async reprice(tx: Tx, draft: DraftOrder, given?: DiscountInput): Promise<void> {
    const priced = await this.pricing.price(tx, draft);
    if (given?.code && priced.discount && !priced.discount.applies) {
      throw AppError.unprocessable('COUPON_INVALID', 'The coupon does not apply to this draft', [
        { path: 'body.discount.code', message: priced.discount.refusal ?? 'does not apply', reason: priced.discount.refusal },
      ]);
    }
    storePrices(tx, draft, priced);
  }
}

async function lockDraft(tx: Tx, id: string): Promise<DraftOrder> {
  const draft = await tx.em.findOne(DraftOrder, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!draft) throw draftNotFound();
  return draft;
}

/** The machine's 409 INVALID_STATE_TRANSITION before anything changes. */
function assertCan(draft: DraftOrder, action: string): void {
  if (draftOrderMachine.can(draft, action)) return;
  const t = draftOrderMachine.transitions[action];
  const verb = action === 'edit' ? 'change' : action.replace(/_/g, ' ');
  throw new AppError(409, 'INVALID_STATE_TRANSITION', `Cannot ${verb} a draft order that is ${draft.status}`, [
    { message: `allowed from: ${(t.from as readonly string[]).join(', ')}`, from: draft.status, action },
  ]);
}

/** The draft's order, locked, while it awaits payment; 409 ORDER_NOT_PAYABLE once it does not (paid, or cancelled). */
async function awaitingPayment(tx: Tx, orderId: string): Promise<Order> {
  const order = await tx.em.findOne(Order, { id: orderId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!order || !AWAITING_PAYMENT.has(order.status)) {
    throw AppError.conflict(`The draft's order is ${order?.status ?? 'gone'}: it no longer awaits payment`, 'ORDER_NOT_PAYABLE', [
      { path: 'params.id', message: `its order is ${order?.status ?? 'gone'}`, order_id: orderId },
    ]);
  }
  return order;
}

/** The store's next draft number: one upsert on its counter row, locked until this transaction ends. */
async function nextNumber(tx: Tx): Promise<number> {
  const [row] = await tx.em.execute<Array<{ last_number: number }>>(
    `insert into draft_orders_counter (tenant_id, last_number) values (?, 1)
     on conflict (tenant_id) do update set last_number = draft_orders_counter.last_number + 1
     returning last_number`,
    [tx.tenantId],
  );
  return Number(row.last_number);
}

/** The customer, e-mail, address, note, shipping and discount of a create or a PATCH (absent: unchanged; null: removed). */
async function applyPatch(tx: Tx, draft: DraftOrder, patch: DraftPatch): Promise<void> {
  if (patch.customer_id !== undefined) {
    draft.customerId = patch.customer_id === null ? null : (await customerOf(tx, patch.customer_id)).id;
    if (patch.customer_id && patch.email === undefined && !draft.email) draft.email = (await customerOf(tx, patch.customer_id)).email.toLowerCase();
  }
  if (patch.email !== undefined) draft.email = patch.email?.trim().toLowerCase() ?? null;
  if (patch.shipping_address !== undefined) draft.shippingAddress = patch.shipping_address;
  if (patch.note !== undefined) draft.note = patch.note || null;
  if (patch.shipping !== undefined) draft.shipping = patch.shipping && shippingOf(patch.shipping);
  if (patch.discount !== undefined) draft.discount = patch.discount && discountOf(patch.discount);
}

async function customerOf(tx: Tx, id: string): Promise<Customer> {
  const customer = await tx.em.findOne(Customer, { id });
  if (!customer) throw AppError.unprocessable('CUSTOMER_NOT_FOUND', 'This customer is not a customer of the store', [{ path: 'body.customer_id', message: 'no such customer' }]);
  if (customer.status !== 'active') throw AppError.unprocessable('CUSTOMER_DISABLED', 'This customer is disabled', [{ path: 'body.customer_id', message: `the customer is ${customer.status}` }]);
  return customer;
}

function shippingOf(input: ShippingInput): DraftOrder['shipping'] {
  if (input.price === undefined) return { carrier: input.carrier, service: input.service, price: 0, custom: false, reason: null };
  assertOverride();
  return { carrier: input.carrier, service: input.service, price: input.price, custom: true, reason: input.reason ?? null };
}

function discountOf(input: DiscountInput): DraftOrder['discount'] {
  if (input.code !== undefined) return { type: 'coupon', code: input.code, value: null, reason: null, applies: false, refusal: null, amount: 0 };
  assertOverride();
  return { type: 'manual', code: null, value: input.amount!, reason: input.reason!, applies: true, refusal: null, amount: 0 };
}

/** A new line, or (a variant already in the draft) more of that line: one line per variant, as at the checkout. */
function addLine(draft: DraftOrder, input: DraftLineInput, path: string): void {
  const override = input.price_override ? { ...input.price_override, set_by: assertOverride() } : null;
  const same = input.variant_id ? draft.lines.find((l) => l.variant_id === input.variant_id) : undefined;
  // A variant is bought once in an order: on the store's stock or on one seller's offer (as in a cart).
  if (same && (same.offer_id ?? null) !== (input.offer_id ?? null)) {
    throw AppError.conflict('This variant is already in the draft from another seller (or the store); remove that line first', 'OFFER_MISMATCH', [
      { path: `${path}.offer_id`, message: 'the line of this variant has another offer', line_id: same.id, offer_id: same.offer_id ?? null },
    ]);
  }
  if (same) {
    const quantity = same.quantity + input.quantity;
    if (quantity > MAX_QUANTITY) throw AppError.validation('A line holds at most 10000 units', [{ path: `${path}.quantity`, message: `the line would hold ${quantity}` }]);
    draft.lines = draft.lines.map((l) => (l === same ? { ...l, quantity, price_override: override ?? l.price_override } : l));
    return;
  }
  if (draft.lines.length >= MAX_LINES) throw AppError.validation(`A draft holds at most ${MAX_LINES} lines`, [{ path, message: 'too many lines' }]);
  const line: DraftLine = {
    id: randomUUID(), variant_id: input.variant_id ?? null, offer_id: input.offer_id ?? null, product_id: null, title: input.title ?? '', variant_title: null, sku: input.sku ?? null,
    quantity: input.quantity, catalog_price: null, unit_price: input.unit_price ?? 0, price_override: override,
    requires_shipping: input.requires_shipping ?? true, taxable: input.taxable ?? true, tax_class: input.tax_class ?? 'standard',
    weight_grams: input.weight_grams ?? null, subtotal: 0, volume_discount: 0, discount_amount: 0, tax_rate: 0, tax_amount: 0, total: 0,
  };
  draft.lines = [...draft.lines, line];
}

/** A line changed as the PATCH says; a catalog line takes no custom line's fields, a custom line no override (400). */
function patchedLine(line: DraftLine, patch: DraftLinePatch): DraftLine {
  const customOnly = (['title', 'unit_price', 'sku', 'tax_class', 'taxable', 'requires_shipping', 'weight_grams'] as const).filter((k) => patch[k] !== undefined);
  if (line.variant_id && customOnly.length > 0) {
    throw AppError.validation('A catalog line takes the catalog’s title, price and tax facts', customOnly.map((k) => ({ path: `body.${k}`, message: 'is for custom lines only' })));
  }
  if (!line.variant_id && patch.price_override !== undefined) {
    throw AppError.validation('A custom line has its own unit_price', [{ path: 'body.price_override', message: 'is for catalog lines only' }]);
  }
  if (line.offer_id && patch.price_override) {
    throw AppError.validation('A line on a seller’s offer is sold at the offer’s price', [{ path: 'body.price_override', message: 'is not for lines on an offer' }]);
  }
  const next = { ...line };
  if (patch.price_override !== undefined) next.price_override = patch.price_override && { ...patch.price_override, set_by: assertOverride() };
  if (patch.quantity !== undefined) next.quantity = patch.quantity;
  if (patch.title !== undefined) next.title = patch.title;
  if (patch.unit_price !== undefined) next.unit_price = patch.unit_price;
  if (patch.sku !== undefined) next.sku = patch.sku ?? null;
  if (patch.tax_class !== undefined) next.tax_class = patch.tax_class;
  if (patch.taxable !== undefined) next.taxable = patch.taxable;
  if (patch.requires_shipping !== undefined) next.requires_shipping = patch.requires_shipping;
  if (patch.weight_grams !== undefined) next.weight_grams = patch.weight_grams ?? null;
  return next;
}
