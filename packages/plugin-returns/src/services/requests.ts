import { randomUUID } from 'node:crypto';
import { AppError, Database, TenantContext, type ErrorDetail, type Tx } from '@qhatu/core';
import { PriceResolver, unitPricesFor, variantsWithProducts, type PriceResolverStrategy } from '@qhatu/plugin-catalog';
import { Reservations } from '@qhatu/plugin-inventory';
import { Fulfillment, OrderTaxes, STORE_SHIPPING_PRICES, taxesFor, type LineItem, type Order, type StoreShippingPrices, type TaxCalculator } from '@qhatu/plugin-orders';
import { inject, injectable } from 'tsyringe';
import { Return, ReturnLine, type ReturnShipping } from '../entities/return.js';
import { RETURN_REQUESTED, returnEvent, returnMachine } from '../machines/return.js';
import type { ReturnCreate } from '../schemas/return.js';
import { ACCOUNT_REFUNDS, type AccountRefunds } from './account-credit.js';
import { customerCaller, linesOfOrder, linesOfReturn, lockOrder, lockReturn } from './common.js';
import { exchangeDifference } from './valuation.js';
import { ReturnPaymentLinks } from './payment-links.js';
import { ReturnReasons } from './reasons.js';
import { StoreReturnSettings } from './settings.js';
import { STORE_CREDIT_GRANTS, type StoreCreditGrants } from './store-credit.js';

/** Returns that still hold units of their order lines (not rejected nor cancelled). */
const HOLDING = ['requested', 'approved', 'partially_received', 'received', 'refunded', 'closed'];

/**
 * Asking for returns, exchanges and claims, and staff's answer: approve (an exchange's new items
 * and a claim's replacement held in stock, a link to pay what an exchange costs more), reject,
 * cancel. Each works under the return's lock; a request also under its order's, so two requests
 * for the last unit of a line are one return and one 422.
 */
@injectable()
export class ReturnRequests {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(ReturnReasons) private readonly reasons: ReturnReasons,
    @inject(StoreReturnSettings) private readonly settings: StoreReturnSettings,
    @inject(Reservations) private readonly reservations: Reservations,
    @inject(PriceResolver) private readonly prices: PriceResolverStrategy,
    @inject(OrderTaxes) private readonly taxes: TaxCalculator,
    @inject(STORE_SHIPPING_PRICES) private readonly shippingPrices: StoreShippingPrices | null,
    @inject(STORE_CREDIT_GRANTS) private readonly credit: StoreCreditGrants,
    @inject(ACCOUNT_REFUNDS) private readonly accounts: AccountRefunds,
    @inject(ReturnPaymentLinks) private readonly links: ReturnPaymentLinks,
  ) {}

  /** A customer's request for their own order, or staff's for any order of the store. */
  async create(input: ReturnCreate): Promise<Return> {
    const ownerId = customerCaller();
    return this.db.tenant(async (tx) => {
      const order = await lockOrder(tx, input.order_id, ownerId);
      if (order.status === 'cancelled') throw AppError.unprocessable('ORDER_NOT_RETURNABLE', 'A cancelled order has nothing to return', [{ path: 'body.order_id', message: 'is cancelled' }]);
      checkKind(input);
      if (ownerId) await this.checkWindow(tx, order);
      if (input.refund_method === 'store_credit') this.credit.assertAvailable(order);
      if (input.refund_method === 'account') await this.accounts.assertOnAccount(tx, order, 'body.refund_method');
      // An order placed on a company's account is refunded to that account unless asked otherwise.
      const refundMethod = input.refund_method ?? ((await this.accounts.accountOf(tx, order)) ? 'account' : 'original_payments');
      const lines = await linesOfOrder(tx, order.id);
      const wanted = await this.checkLines(tx, order, lines, input);
      const at = tx.now();
      const id = randomUUID();
      const created: ReturnLine[] = wanted.map(({ line, quantity, reason, note }, position) =>
        tx.em.create(ReturnLine, {
          id: randomUUID(), tenantId: tx.tenantId, returnId: id, orderId: order.id, position, kind: 'returned', lineItemId: line.id, variantId: line.variantId ?? null,
          title: line.variantTitle ? `${line.title} - ${line.variantTitle}` : line.title, sku: line.sku ?? null, quantity, reasonCode: reason, note, receivedQuantity: 0,
          restockedQuantity: 0, damagedQuantity: 0, warehouseId: null, refundAmount: 0, taxAmount: 0, unitPrice: 0, shippedQuantity: 0, createdAt: at,
        }),
      );
      if (input.kind === 'exchange') created.push(...(await this.newItems(tx, id, order, input.new_items ?? [], created.length)));
      const ret = tx.em.create(Return, {
        id, tenantId: tx.tenantId, number: await nextNumber(tx), orderId: order.id, kind: input.kind, status: 'requested',
        claimType: input.kind === 'claim' ? input.claim_type! : null, resolution: input.kind === 'claim' ? input.resolution! : null,
        customerId: order.customerId ?? null, email: order.customerEmail, requestedBy: ownerId ? 'customer' : 'staff', reasonCode: input.reason_code ?? null,
        note: input.note ?? null, currency: order.currency.trim(), shipping: input.kind === 'claim' ? null : await this.shippingOf(tx, order, wanted, input),
        refundMethod, itemsAmount: 0, taxAmount: 0, shippingAmount: 0, accountAmount: 0,
        newItemsAmount: created.filter((l) => l.kind === 'new').reduce((s, l) => s + l.refundAmount, 0), refundAmount: 0, amountDue: 0, amountPaid: 0,
        refunds: [], paymentUrl: null, shipment: null, rejectReason: null, createdBy: TenantContext.principalId(), approvedAt: null, receivedAt: null,
        refundedAt: null, closedAt: null, cancelledAt: null, createdAt: at, updatedAt: at,
      });
      tx.publish(RETURN_REQUESTED, returnEvent(ret));
      return ret;
    });
  }

  /**
   * requested → approved. An exchange's new items and a claim's replacement are held in stock now
   * (409 INSUFFICIENT_STOCK, nothing approved); an exchange worth less than its new items gets a
   * link to pay the difference.
   */
  async approve(id: string): Promise<Return> {
    return this.db.tenant(async (tx) => {
      const ret = await lockReturn(tx, id);
      if (!returnMachine.can(ret, 'approve')) return returnMachine.apply(tx, ret, 'approve');
      const lines = await linesOfReturn(tx, ret.id);
      const held = toHold(ret, lines);
      if (held.length > 0) await this.reservations.hold(tx, { orderId: ret.id, lines: held, shortfall: 'refuse' });
      Object.assign(ret, { approvedAt: tx.now(), updatedAt: tx.now() });
      if (ret.kind === 'exchange') {
        const order = await lockOrder(tx, ret.orderId);
        const { due } = await exchangeDifference(tx, await this.settings.read(tx), order, ret, lines);
        ret.amountDue = due;
        if (due > 0) ret.paymentUrl = this.links.link({ tenantId: tx.tenantId, returnId: ret.id }).url;
      }
      return returnMachine.apply(tx, ret, 'approve');
    });
  }

  async reject(id: string, reason?: string): Promise<Return> {
    return this.db.tenant(async (tx) => {
      const ret = await lockReturn(tx, id);
      if (returnMachine.can(ret, 'reject')) Object.assign(ret, { rejectReason: reason ?? null, updatedAt: tx.now() });
      return returnMachine.apply(tx, ret, 'reject');
    });
  }

  /** requested or approved → cancelled (a customer their own, while requested); what it held in stock is given back. */
  async cancel(id: string): Promise<Return> {
    const ownerId = customerCaller();
    return this.db.tenant(async (tx) => {
      const ret = await lockReturn(tx, id, ownerId);
      if (ownerId && ret.status !== 'requested') {
        throw new AppError(409, 'INVALID_STATE_TRANSITION', `Cannot cancel a return that is ${ret.status}; ask the store`, [{ message: 'a customer cancels while requested', from: ret.status, action: 'cancel' }]);
      }
      if (returnMachine.can(ret, 'cancel') && ret.amountPaid > 0) {
        throw AppError.conflict('Money was received for this exchange: refund it instead of cancelling', 'RETURN_PAID', [{ message: 'paid', amount_paid: ret.amountPaid }]);
      }
      if (returnMachine.can(ret, 'cancel')) {
        await this.reservations.release(tx, ret.id);
        Object.assign(ret, { cancelledAt: tx.now(), updatedAt: tx.now() });
      }
      return returnMachine.apply(tx, ret, 'cancel');
    });
  }

  /** A customer asks within the store's window after the order's last shipment (422 RETURN_WINDOW_CLOSED). */
  private async checkWindow(tx: Tx, order: Order): Promise<void> {
    const { windowDays } = await this.settings.read(tx);
    if (!windowDays) return;
    const [last] = await tx.em.find(Fulfillment, { orderId: order.id }, { orderBy: { shippedAt: 'desc' }, limit: 1 });
    const since = last?.deliveredAt ?? last?.shippedAt ?? order.fulfilledAt;
    if (since && tx.now().getTime() - since.getTime() > windowDays * 86_400_000) {
      throw AppError.unprocessable('RETURN_WINDOW_CLOSED', `Returns are taken within ${windowDays} days of delivery`, [{ path: 'body.order_id', message: 'too long ago', window_days: windowDays }]);
    }
  }

  /**
   * Each line of the order at most what was fulfilled of it and is not in another return yet (422
   * RETURN_QUANTITY_EXCEEDED), with an active reason of the store (claims say their problem instead).
   */
  private async checkLines(tx: Tx, order: Order, lines: LineItem[], input: ReturnCreate) {
    const byId = new Map(lines.map((l) => [l.id, l]));
    const taken = await unitsInReturns(tx, order.id);
    const asked = new Map<string, number>();
    const problems: ErrorDetail[] = [];
    const reasons: Array<{ path: string; code: string }> = [];
    const wanted = input.lines.flatMap((l, n) => {
      const path = `body.lines.${n}`;
      const line = byId.get(l.line_item_id);
      if (!line) {
        problems.push({ path, message: 'is not a line of this order', code: 'LINE_ITEM_NOT_FOUND', line_item_id: l.line_item_id });
        return [];
      }
      const returnable = line.fulfilledQuantity - (taken.get(line.id) ?? 0) - (asked.get(line.id) ?? 0);
      asked.set(line.id, (asked.get(line.id) ?? 0) + l.quantity);
      if (l.quantity > returnable) problems.push({ path, message: `${l.quantity} asked, ${Math.max(0, returnable)} fulfilled and not returned yet`, code: 'RETURN_QUANTITY_EXCEEDED', line_item_id: line.id, requested: l.quantity, returnable: Math.max(0, returnable) });
      const reason = l.reason_code ?? input.reason_code ?? null;
      if (input.kind !== 'claim') {
        if (!reason) problems.push({ path: `${path}.reason_code`, message: 'give a reason from the store’s list', code: 'RETURN_REASON_REQUIRED', line_item_id: line.id });
        else reasons.push({ path: l.reason_code ? `${path}.reason_code` : 'body.reason_code', code: reason });
      }
      return [{ line, quantity: l.quantity, reason, note: l.note ?? null }];
    });
    if (problems.length > 0) {
      const code = String(problems.find((p) => p.code === 'LINE_ITEM_NOT_FOUND')?.code ?? problems[0].code);
      throw AppError.unprocessable(code, 'The lines cannot be returned as asked', problems);
    }
    await this.reasons.check(tx, reasons);
    return wanted;
  }

  /**
   * An exchange's new items, priced in the order's currency as the order's customer would pay for
   * them now (the catalog's `PriceResolver`, B2B price lists included, never above the catalog's
   * price there: a variant's explicit price in that currency, else the one derived by the store's
   * rate) and taxed at the order's address, in the order's tax mode (its `prices_include_tax`), not
   * the store's setting now. A variant with no price in the order's currency is 422
   * VARIANT_CURRENCY_MISMATCH.
   */
  private async newItems(tx: Tx, returnId: string, order: Order, items: Array<{ variant_id: string; quantity: number }>, first: number): Promise<ReturnLine[]> {
    const sellables = await variantsWithProducts(tx, items.map((i) => i.variant_id));
    const missing: ErrorDetail[] = items.flatMap((i, n) =>
      sellables.has(i.variant_id) ? [] : [{ path: `body.new_items.${n}`, message: 'is not a variant of this store', code: 'VARIANT_NOT_FOUND', variant_id: i.variant_id }],
    );
    if (missing.length > 0) throw AppError.unprocessable('VARIANT_NOT_FOUND', 'A new item cannot be sold on this order', missing);
    const currency = order.currency.trim();
    const variants = [...new Map(items.map((i) => [i.variant_id, sellables.get(i.variant_id)!.variant])).values()];
    const { unitPrices } = await unitPricesFor(this.prices, tx, variants, { customerId: order.customerId ?? null, currency });
    const unpriced: ErrorDetail[] = items.flatMap((i, n) =>
      unitPrices.has(i.variant_id) ? [] : [{ path: `body.new_items.${n}`, message: `has no price in the order's ${currency}`, code: 'VARIANT_CURRENCY_MISMATCH', variant_id: i.variant_id }],
    );
    if (unpriced.length > 0) throw AppError.unprocessable('VARIANT_CURRENCY_MISMATCH', 'A new item cannot be sold on this order', unpriced);
    const priced = items.map((i) => ({ item: i, sellable: sellables.get(i.variant_id)!, price: unitPrices.get(i.variant_id)! }));
    const quote = await taxesFor(this.taxes, tx, {
      currency,
      address: order.shippingAddress ?? null,
      lines: priced.map((p) => ({ variantId: p.sellable.variant.id, productId: p.sellable.product.id, quantity: p.item.quantity, amount: p.price * p.item.quantity, taxable: p.sellable.variant.taxable })),
      shipping: 0,
      // The order's own mode (a market's, or the store's setting when it was placed), not the store's now.
      pricesIncludeTax: order.pricesIncludeTax,
    });
    const at = tx.now();
    return priced.map((p, n) =>
      tx.em.create(ReturnLine, {
        id: randomUUID(), tenantId: tx.tenantId, returnId, orderId: order.id, position: first + n, kind: 'new', lineItemId: null, variantId: p.sellable.variant.id,
        title: `${p.sellable.product.title} - ${p.sellable.variant.title}`, sku: p.sellable.variant.sku ?? null, quantity: p.item.quantity, reasonCode: null, note: null,
        receivedQuantity: 0, restockedQuantity: 0, damagedQuantity: 0, warehouseId: null,
        // What the customer pays for the line: its price, plus its tax where the order's prices exclude it.
        refundAmount: p.price * p.item.quantity + (quote.pricesIncludeTax ? 0 : quote.lines[n].amount),
        taxAmount: quote.lines[n].amount, unitPrice: p.price, shippedQuantity: 0, createdAt: at,
      }),
    );
  }

  /** How the items come back; a store label is priced with the store's rates for their weight, from the order's address. */
  private async shippingOf(tx: Tx, order: Order, wanted: Array<{ line: LineItem; quantity: number }>, input: ReturnCreate): Promise<ReturnShipping> {
    const chosen = input.shipping ?? { method: 'customer' as const };
    const variants = await variantsWithProducts(tx, wanted.flatMap((w) => (w.line.variantId ? [w.line.variantId] : [])));
    const weight = wanted.reduce((s, w) => s + (w.line.variantId ? (variants.get(w.line.variantId)?.variant.weightGrams ?? 0) : 0) * w.quantity, 0);
    if (chosen.method === 'customer') return { method: 'customer', carrier: null, service: null, amount: 0, weight_grams: weight };
    const answer = this.shippingPrices && order.shippingAddress
      ? await this.shippingPrices.priceFor(tx, { carrier: chosen.carrier, service: chosen.service, destination: order.shippingAddress, weightGrams: weight, currency: order.currency.trim() })
      : { priced: false as const };
    if (!answer.priced) {
      throw AppError.unprocessable('RETURN_LABEL_NOT_PRICED', 'The store has no rate for this carrier and service for the parcel (or the order has no address)', [
        { path: 'body.shipping', message: 'no rate of the store prices it', carrier: chosen.carrier, service: chosen.service, weight_grams: weight },
      ]);
    }
    return { method: 'store_label', carrier: chosen.carrier, service: chosen.service, amount: answer.price, weight_grams: weight };
  }
}

/** A claim names its problem and what it wants; an exchange its new items; nothing else does (422). */
function checkKind(input: ReturnCreate): void {
  const problems: ErrorDetail[] = [];
  if (input.kind === 'claim' && (!input.claim_type || !input.resolution)) problems.push({ path: 'body.claim_type', message: 'a claim says what happened (missing or damaged) and what it asks for (replace or refund)' });
  if (input.kind !== 'claim' && (input.claim_type || input.resolution)) problems.push({ path: 'body.claim_type', message: 'only a claim has a claim type and resolution' });
  if (input.kind === 'exchange' && !input.new_items?.length) problems.push({ path: 'body.new_items', message: 'an exchange names the new items' });
  if (input.kind !== 'exchange' && input.new_items?.length) problems.push({ path: 'body.new_items', message: 'only an exchange has new items' });
  if (input.kind === 'claim' && input.shipping) problems.push({ path: 'body.shipping', message: 'nothing of a claim comes back' });
  if (problems.length > 0) throw AppError.validation(problems[0].message as string, problems);
}

/** What approving holds: an exchange's new items, a claim's replacement units. */
function toHold(ret: Return, lines: ReturnLine[]): Array<{ variantId: string; quantity: number }> {
  if (ret.kind === 'exchange') return lines.filter((l) => l.kind === 'new' && l.variantId).map((l) => ({ variantId: l.variantId!, quantity: l.quantity }));
  if (ret.kind === 'claim' && ret.resolution === 'replace') return lines.filter((l) => l.variantId).map((l) => ({ variantId: l.variantId!, quantity: l.quantity }));
  return [];
}

/** Units of each order line in returns that hold them. */
async function unitsInReturns(tx: Tx, orderId: string): Promise<Map<string, number>> {
  const rows = await tx.query<{ line_item_id: string; units: string }>(
    `select l.line_item_id, sum(l.quantity) as units from returns_line l
       join returns_return r on r.tenant_id = l.tenant_id and r.id = l.return_id
      where l.tenant_id = ? and l.order_id = ? and l.kind = 'returned' and r.status in (${HOLDING.map(() => '?').join(', ')})
      group by l.line_item_id`,
    [tx.tenantId, orderId, ...HOLDING],
  );
  return new Map(rows.map((r) => [r.line_item_id, Number(r.units)]));
}

/** The store's next return number: one upsert on its counter row. */
async function nextNumber(tx: Tx): Promise<number> {
  const [row] = await tx.query<{ last_number: number }>(
    `insert into returns_counter (tenant_id, last_number) values (?, 1)
     on conflict (tenant_id) do update set last_number = returns_counter.last_number + 1 returning last_number`,
    [tx.tenantId],
  );
  return Number(row.last_number);
}
