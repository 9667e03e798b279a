import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AppError, CustomFields, Database, jsonColumn, LOGGER, ormOf, Tenant, TenantContext, type BeforeStatement, type CustomFieldValues, type ErrorDetail, type SqlTx, type Tx } from '@qhatu/core';
import { variantsWithProducts, type SellableFacts } from '@qhatu/plugin-catalog';
import { Customers, customerByEmailSql, type Customer } from '@qhatu/plugin-customers';
import { stockTermsFrom, stockTermsSql } from '@qhatu/plugin-inventory';
import type { Logger } from 'pino';
import { inject, injectable } from 'tsyringe';
import { z } from 'zod';
import { Fulfillment, isReplacement } from '../entities/fulfillment.js';
import { LineItem } from '../entities/line-item.js';
import { Order, type ShippingAddress } from '../entities/order.js';
import { ORDER_CANCEL_GUARDS, type CancelGuards } from './cancel-guard.js';
import { publishCreated, publishFulfillment } from './events.js';
import { orderMachine } from '../machines/order.js';
import { recordPayments, type PaymentEntry } from './ledger.js';
import { assertStoreCurrency } from './currency.js';
import { addHistoryNote, assertCan, linesOf, lockOrder, move } from './lifecycle.js';
import { LineOffers, offerUnitPrice, type LineOffersStrategy, type OfferTerms } from './offers.js';
import { OrderPrices, type LinePrices, type PricedLine } from './prices.js';
import { NOTHING_TO_PAY, Settlement } from './settlement.js';
import { reviseOrder, type OrderRevision } from './revision.js';
import { Shipping } from './shipping.js';
import { allocate, OrderTaxes, quoteFits, taxesFor, type TaxCalculator, type TaxQuote } from './taxes.js';

export const FIRST_ORDER_NUMBER = 1001;

/** What `placeOrder` takes: the REST create, or a cart handed over by the checkout plugin. */
export interface PlaceOrderInput {
  customerEmail: string;
  /** Known to the checkout; otherwise the customer with `customerEmail`, if the store has one. */
  customerId?: string | null;
  lines: Array<{
    variantId: string;
    quantity: number;
    /** Ignored: the catalog's price is charged. */
    price?: number;
    /** This line's share of `discountTotal`; when the lines' shares do not add up to it, it is spread in proportion to the lines. */
    discount?: number;
    /** A seller's offer of the variant's product (marketplace): priced and stocked by the offer. */
    offerId?: string | null;
    /**
     * A unit price set by staff (a draft order's override): charged instead of the catalog's. Only a
     * service that checked the staff's permission passes it; the REST create never does.
     */
    unitPrice?: number;
  }>;
  /** Lines of no catalog variant (a draft order's custom lines), after the variants' lines: charged as given, never stocked. */
  customLines?: CustomLineInput[];
  shippingAddress?: ShippingAddress | null;
  /** Worked out by the checkout (minor units, the order's currency); 0 when absent. */
  shippingTotal?: number;
  discountTotal?: number;
  /**
   * The tax of these lines as the caller (the checkout) quoted it with the same calculator, so a
   * provider is not asked twice; when absent or for other lines, the order asks the calculator, in
   * this quote's mode when given (a market's `prices_include_tax`), else in the store's. The order
   * keeps the mode as its `prices_include_tax`.
   */
  taxes?: TaxQuote;
  /** When given, the variants' currency must be this one. */
  currency?: string;
  /** The store's currency (the REST create): a variant priced in another is 422 VARIANT_CURRENCY_MISMATCH. */
  storeCurrency?: string;
  /**
   * What a line of a tracked variant short of stock does (decision 0054): `backorder` (default, the
   * checkout) refuses the order with inventory's 409 INSUFFICIENT_STOCK unless the variant allows
   * backorders; `accept` (staff) places it, the line showing what is backordered.
   */
  shortfall?: 'backorder' | 'accept';
  /** Checked values of the order's custom fields (`CustomFields.create`, or a cart's carried over); absent: the defaults. */
  customFields?: CustomFieldValues;
  /** The order's number, taken beforehand with `Orders.numberBefore` (decision 0081); absent: the store's next, taken in this transaction. */
  number?: number;
  /** The catalog's facts of the lines' variants as the caller read them in this transaction (the checkout's one read); absent: read here. */
  catalog?: Map<string, SellableFacts>;
  /**
   * The column of `Orders.placingReadsSql` as the caller's statement read it in this transaction, for
   * these lines and this e-mail (the customer of the e-mail, how the variants are sold); absent: read here.
   */
  reads?: unknown;
  /**
   * The caller's `Database.write` in this transaction: the order and its lines are queued on it
   * and go out with the caller's own writes, in one round trip (decision 0080).
   */
  writes?: SqlTx;
}

/** The store's next number: the counter row of the store, made at the first order. */
const NEXT_NUMBER_SQL = `insert into orders_counter (tenant_id, last_number) values (?, ?)
  on conflict (tenant_id) do update set last_number = orders_counter.last_number + 1
  returning last_number`;

const INSERT_ORDER_SQL = `insert into orders_order (tenant_id, id, number, status, customer_id, customer_email, customer_name, currency, subtotal,
    shipping_total, discount_total, tax_total, shipping_tax, prices_include_tax, total, amount_paid, amount_refunded, shipping_address, history,
    custom_fields, created_at, updated_at)
  values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?::jsonb, '[]'::jsonb, ?::jsonb, ?, ?)`;

// Every line in one statement, whatever their number.
const INSERT_LINES_SQL = `insert into orders_line_item (tenant_id, id, order_id, position, variant_id, product_id, title, variant_title, sku, quantity,
    fulfilled_quantity, backordered_quantity, unit_price_amount, total_amount, requires_shipping, discount_amount, tax_class, tax_rate, tax_amount, offer_id)
  select ?::uuid, l.id, l.order_id, l.position, l.variant_id, l.product_id, l.title, l.variant_title, l.sku, l.quantity, 0, l.backordered_quantity,
         l.unit_price_amount, l.total_amount, l.requires_shipping, l.discount_amount, l.tax_class, l.tax_rate, l.tax_amount, l.offer_id
    from jsonb_to_recordset(?::jsonb) as l (id uuid, order_id uuid, position int, variant_id uuid, product_id uuid, title text, variant_title text,
         sku text, quantity int, backordered_quantity int, unit_price_amount bigint, total_amount bigint, requires_shipping boolean,
         discount_amount bigint, tax_class text, tax_rate int, tax_amount bigint, offer_id uuid)`;

// Planned once per connection: every order placed writes them.
const PREPARED = { prepare: true };

/** A line of no catalog variant: its title, price and tax class are the caller's. */
export interface CustomLineInput {
  /** The order line's id (a draft's line keeps its id); new when absent. */
  id?: string;
  title: string;
  sku?: string | null;
  quantity: number;
  unitPrice: number;
  requiresShipping: boolean;
  taxable: boolean;
  /** The tax class it is taxed at; `standard` when absent. */
  taxClass?: string;
  /** Its share of `discountTotal`, as for a variant's line. */
  discount?: number;
}

/**
 * Each line's share of the order's discounts: the caller's shares when they add up to the total
 * (the checkout knows which line each discount came from), otherwise in proportion to the lines.
 * Custom lines follow the variants' lines, in the order given.
 */
function lineDiscounts(input: PlaceOrderInput, lines: LineItem[], discountTotal: number): number[] {
  const given = new Map<string, number>();
  for (const l of input.lines) given.set(l.variantId, (given.get(l.variantId) ?? 0) + (l.discount ?? 0));
  const custom = input.customLines ?? [];
  const first = lines.length - custom.length;
  const shares = lines.map((l, n) => Math.min(n >= first ? (custom[n - first].discount ?? 0) : (given.get(l.variantId!) ?? 0), l.totalAmount));
  if (shares.reduce((s, x) => s + x, 0) === discountTotal) return shares;
  return allocate(Math.min(discountTotal, lines.reduce((s, l) => s + l.totalAmount, 0)), lines.map((l) => l.totalAmount));
}

/** The order line of a custom line, at its given price; its tax comes with the order's. */
function customLine(tx: Tx | SqlTx, orderId: string, position: number, c: CustomLineInput): LineItem {
  return {
    id: c.id ?? randomUUID(), tenantId: tx.tenantId, orderId, position, variantId: null, productId: null, title: c.title, variantTitle: '',
    sku: c.sku ?? null, quantity: c.quantity, fulfilledQuantity: 0, backorderedQuantity: 0, unitPriceAmount: c.unitPrice,
    totalAmount: c.unitPrice * c.quantity, requiresShipping: c.requiresShipping, discountAmount: 0, taxClass: c.taxClass ?? 'standard',
    taxRate: 0, taxAmount: 0, offerId: null,
  };
}

/** `payments.payment.confirmed` as the payments plugin publishes it. */
export interface PaymentConfirmed {
  payment_id: string;
  order_id: string;
  amount: number;
  currency: string;
}

/** The data of `payments.payment.confirmed`, as the payments plugin publishes it. */
export const PaymentConfirmedData = z.object({
  payment_id: z.string().min(1),
  order_id: z.uuid(),
  amount: z.number().int().min(0),
  currency: z.string().length(3),
});

/** Orders and their lifecycle: the only writer of orders, besides `Fulfillments`. */
@injectable()
export class Orders {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Customers) private readonly customers: Customers,
    @inject(Shipping) private readonly shipping: Shipping,
    @inject(OrderPrices) private readonly prices: LinePrices,
    @inject(OrderTaxes) private readonly taxes: TaxCalculator,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(LineOffers) private readonly offers: LineOffersStrategy,
    @inject(ORDER_CANCEL_GUARDS) private readonly cancelGuards: CancelGuards,
    @inject(Settlement) private readonly settlement: Settlement,
    @inject(CustomFields) private readonly fields: CustomFields,
  ) {}

  /** The REST create: an order in the store's currency (each variant priced in it). */
  async create(input: PlaceOrderInput): Promise<Order> {
    return this.db.tenant(async (tx) => {
      const store = await tx.em.findOneOrFail(Tenant, { id: tx.tenantId });
      return this.placeOrder(tx, { ...input, storeCurrency: store.currency.trim() });
    });
  }

  /**
   * What `place` reads besides the catalog, as one JSON column of a caller's statement (the
   * checkout's locking read), handed back as `PlaceOrderInput.reads`: the customer of the e-mail and
   * how each variant is sold (its stock kept or not). `tenantSql` names the tenant, `emailSql` the
   * e-mail (lower case), `variantIdsSql` selects the lines' variants.
   */
  placingReadsSql(tenantSql: string, emailSql: string, variantIdsSql: string): string {
    return `json_build_object('customer', ${customerByEmailSql(tenantSql, emailSql)}, 'stock', ${stockTermsSql(tenantSql, variantIdsSql)})`;
  }

  async placeOrder(tx: Tx, input: PlaceOrderInput): Promise<Order> {
    return (await this.place(tx, input)).order;
  }

  /**
   * Places an order inside the caller's transaction (the checkout's): prices from the catalog,
   * lines as a snapshot, the customer linked by e-mail, the next order number of the store, the
   * stock of tracked variants held (decision 0054). An order of total 0 is paid at once.
   * On an ORM-free transaction (`Database.sqlFirst`, its `writes` given) an order that needs no
   * more than SQL is placed without the ORM; a part that needs it (stock to hold, a seller's offer,
   * nothing to pay) starts it on that transaction (`ormOf`).
   */
  async place(tx: Tx | SqlTx, input: PlaceOrderInput): Promise<{ order: Order; lines: LineItem[] }> {
    const merged = new Map<string, number>();
    for (const l of input.lines) merged.set(l.variantId, (merged.get(l.variantId) ?? 0) + l.quantity);
    const custom = input.customLines ?? [];
    if (merged.size === 0 && custom.length === 0) throw AppError.validation('An order needs at least one line', [{ path: 'line_items', message: 'give at least one line' }]);
    const variantIds = [...merged.keys()];
    // The variants with their products, in one statement (unless the caller read them in this transaction).
    const sellables: Map<string, SellableFacts> = input.catalog ?? (await variantsWithProducts(await ormOf(tx), variantIds));
    const variants = [...sellables.values()].map((s) => s.variant);
    const products = new Map([...sellables.values()].map((s) => [s.product.id, s.product]));
    const byId = new Map(variants.map((v) => [v.id, v]));
    const missing: ErrorDetail[] = variantIds.filter((id) => !byId.has(id)).map((id) => ({ path: 'line_items', message: 'is not a variant of this store', variant_id: id }));
    if (missing.length > 0) throw AppError.unprocessable('VARIANT_NOT_FOUND', `Unknown variants: ${missing.map((m) => m.variant_id).join(', ')}`, missing);
    if (input.storeCurrency) assertStoreCurrency(input.lines, byId, input.storeCurrency);
    const currencies = [...new Set(variants.map((v) => v.currency))];
    if (currencies.length > 1) {
      throw AppError.unprocessable('MIXED_CURRENCIES', `The variants are priced in ${currencies.join(' and ')}; an order has one currency`, currencies.map((c) => ({ message: 'currency of a line', currency: c })));
    }
    // Custom lines alone take the caller's currency.
    const currency = currencies[0] ?? input.currency ?? input.storeCurrency;
    if (!currency) throw AppError.validation('An order of custom lines only needs its currency', [{ path: 'currency', message: 'is required' }]);
    if (input.currency && input.currency !== currency) {
      throw AppError.unprocessable('CURRENCY_MISMATCH', `The variants are priced in ${currency}, not ${input.currency}`);
    }
    const ordered = variantIds.map((id) => byId.get(id)!);
    if (!input.shippingAddress && (ordered.some((v) => v.requiresShipping) || custom.some((c) => c.requiresShipping))) {
      throw AppError.unprocessable('SHIPPING_ADDRESS_REQUIRED', 'A line requires shipping: give a shipping_address', [{ path: 'body.shipping_address', message: 'is required' }]);
    }

    const email = input.customerEmail.trim().toLowerCase();
    const reads = input.reads === undefined ? undefined : placingReadsFrom(input.reads);
    const customer = input.customerId ? null : reads ? reads.customer : await this.customers.findByEmail(email);
    const customerId = input.customerId ?? customer?.id ?? null;
    const offered = await this.offeredLines(tx, input.lines, byId);
    const id = randomUUID();
    // Refused before anything is priced or numbered: the checkout stays at its step.
    const stockLines = ordered.map((v) => ({ variantId: v.id, quantity: merged.get(v.id)!, requiresShipping: v.requiresShipping, offerId: offered.get(v.id)?.offerId }));
    const backordered = await this.shipping.holdNew(tx, id, stockLines, input.shortfall ?? 'backorder', reads?.stock);
    const set = new Map(input.lines.flatMap((l) => (l.unitPrice === undefined ? [] : [[l.variantId, l.unitPrice] as const])));
    const unit = await this.prices.unitPrices(tx, ordered.filter((v) => !offered.has(v.id) && !set.has(v.id)), customerId);

    const at = tx.now();
    const lines = ordered.map((v, position) => {
      const quantity = merged.get(v.id)!;
      const offer = offered.get(v.id);
      const price = set.get(v.id) ?? (offer ? offerUnitPrice(offer, v) : Math.min(unit.get(v.id) ?? v.price, v.price));
      const line: LineItem = {
        id: randomUUID(),
        tenantId: tx.tenantId,
        orderId: id,
        position,
        variantId: v.id,
        productId: v.productId,
        title: products.get(v.productId)?.title ?? v.title,
        variantTitle: v.title,
        sku: v.sku ?? null,
        quantity,
        fulfilledQuantity: 0,
        backorderedQuantity: backordered.get(v.id) ?? 0,
        unitPriceAmount: price,
        totalAmount: price * quantity,
        requiresShipping: v.requiresShipping,
        discountAmount: 0,
        taxClass: 'standard',
        taxRate: 0,
        taxAmount: 0,
        offerId: offer?.offerId ?? null,
      };
      return line;
    });
    for (const [n, c] of custom.entries()) lines.push(customLine(tx, id, ordered.length + n, c));
    const taxable = [...ordered.map((v) => v.taxable), ...custom.map((c) => c.taxable)];
    const subtotal = lines.reduce((sum, l) => sum + l.totalAmount, 0);
    const shippingTotal = input.shippingTotal ?? 0;
    const discountTotal = Math.min(input.discountTotal ?? 0, subtotal + shippingTotal);
    const shares = lineDiscounts(input, lines, discountTotal);
    lines.forEach((l, n) => (l.discountAmount = shares[n]));
    // Taxed after discounts, on each line's final price (decision 0039).
    const request = {
      currency,
      address: input.shippingAddress ?? null,
      // A custom line is known to the calculator by its own id, with the class it was given.
      lines: lines.map((l, n) => ({
        variantId: l.variantId ?? l.id, productId: l.productId ?? l.id, quantity: l.quantity, amount: l.totalAmount - l.discountAmount, taxable: taxable[n],
        ...(l.variantId ? {} : { taxClass: l.taxClass }),
      })),
      shipping: shippingTotal,
      // The mode the caller priced the order in, even when its quote is for other lines: the order shows what was shown.
      pricesIncludeTax: input.taxes?.pricesIncludeTax ?? null,
    };
    const taxes = input.taxes && quoteFits(input.taxes, request.lines) ? input.taxes : await taxesFor(this.taxes, tx, request);
    lines.forEach((l, n) => Object.assign(l, { taxClass: taxes.lines[n].taxClass, taxRate: taxes.lines[n].rate, taxAmount: taxes.lines[n].amount }));
    const taxTotal = taxes.total;
    const address = input.shippingAddress ?? null;
    const name = address ? `${address.first_name} ${address.last_name}` : customer ? `${customer.firstName} ${customer.lastName}` : '';
    const order: Order = {
      id,
      tenantId: tx.tenantId,
      number: input.number ?? (await this.nextNumber(tx)),
      status: 'pending',
      customerId,
      customerEmail: email,
      customerName: name.trim(),
      currency,
      subtotal,
      shippingTotal,
      discountTotal,
      taxTotal,
      shippingTax: taxes.shipping.amount,
      pricesIncludeTax: taxes.pricesIncludeTax,
      total: subtotal + shippingTotal - discountTotal + (taxes.pricesIncludeTax ? 0 : taxTotal),
      shippingAddress: address,
      history: [],
      cancelReason: null,
      cancelledAt: null,
      paidAt: null,
      awaitingStockPaymentId: null,
      stockUnavailableAt: null,
      amountPaid: 0,
      amountRefunded: 0,
      amountWaived: 0,
      fulfilledAt: null,
      customFields: input.customFields ?? this.fields.create('order', undefined),
      createdAt: at,
      updatedAt: at,
    };
    // What reads the order back in this transaction needs its rows written first.
    const later = offered.size === 0 && order.total !== 0 ? input.writes : undefined;
    const placed = later ? this.queue(later, order, lines) : await this.persist(await ormOf(tx), order, lines);
    publishCreated(tx, placed.order, placed.lines);
    if (offered.size > 0) await this.offers.orderPlaced(await ormOf(tx), placed.order, placed.lines);
    if (order.total === 0) await this.settlement.payIfCovered(await ormOf(tx), placed.order, NOTHING_TO_PAY, placed.lines);
    return placed;
  }

  /**
   * Writes a new order and its lines in two statements and one round trip, then hands them to the
   * unit of work as stored: a change later in this transaction (paid at once, a seller's offer) is
   * saved as an update.
   */
  private async persist(tx: Tx, order: Order, lines: LineItem[]): Promise<{ order: Order; lines: LineItem[] }> {
    await this.db.write(async (sql) => void this.queue(sql, order, lines), tx.tenantId);
    return { order: tx.em.merge(Order, order), lines: lines.map((l) => tx.em.merge(LineItem, l)) };
  }

  /** Queues a new order and its lines on `sql` (only when nothing later in the transaction changes them): they go out with its COMMIT. */
  private queue(sql: SqlTx, order: Order, lines: LineItem[]): { order: Order; lines: LineItem[] } {
    sql.later(INSERT_ORDER_SQL, [
      sql.tenantId, order.id, order.number, order.status, order.customerId, order.customerEmail, order.customerName, order.currency, order.subtotal,
      order.shippingTotal, order.discountTotal, order.taxTotal, order.shippingTax, order.pricesIncludeTax, order.total,
      order.shippingAddress ? JSON.stringify(order.shippingAddress) : null, JSON.stringify(order.customFields), order.createdAt, order.updatedAt,
    ], PREPARED);
    const rows = lines.map((l) => ({
      id: l.id, order_id: l.orderId, position: l.position, variant_id: l.variantId, product_id: l.productId, title: l.title, variant_title: l.variantTitle,
      sku: l.sku, quantity: l.quantity, backordered_quantity: l.backorderedQuantity, unit_price_amount: l.unitPriceAmount, total_amount: l.totalAmount,
      requires_shipping: l.requiresShipping, discount_amount: l.discountAmount, tax_class: l.taxClass, tax_rate: l.taxRate, tax_amount: l.taxAmount, offer_id: l.offerId,
    }));
    if (rows.length > 0) sql.later(INSERT_LINES_SQL, [sql.tenantId, JSON.stringify(rows)], PREPARED);
    return { order, lines };
  }

  /**
   * The store's next order number as the statement a caller's `Database.tenant` sends before its
   * transaction, in the round trip of its BEGIN (`before`; decisions 0081 and 0102): in a transaction
   * of its own that ends at once and does not wait for the disk (the order's own commit, later in the
   * same log, makes it durable with the order), so that orders of one store placed at the same time
   * never wait for each other on the counter row. `taken` has the number before the transaction's
   * work begins. A number taken for an order that is then not placed is not used again (a gap).
   */
  numberBefore(taken: (number: number) => void): BeforeStatement {
    return {
      sql: NEXT_NUMBER_SQL,
      params: [TenantContext.tenantId(), FIRST_ORDER_NUMBER],
      rows: (rows: Array<{ last_number: number | string }>) => taken(Number(rows[0].last_number)),
    };
  }

  /**
   * The offers the lines name, by variant: each must be for sale now and of the variant's product
   * (422 OFFER_NOT_AVAILABLE), and a variant is bought on one offer or on none (422 OFFER_MISMATCH).
   */
  private async offeredLines(tx: Tx | SqlTx, lines: PlaceOrderInput['lines'], variants: Map<string, PricedLine>): Promise<Map<string, OfferTerms>> {
    const named = new Map<string, string | null>();
    for (const l of lines) {
      const offerId = l.offerId ?? null;
      if (named.has(l.variantId) && named.get(l.variantId) !== offerId) {
        throw AppError.unprocessable('OFFER_MISMATCH', 'A variant is bought on one offer in an order', [{ path: 'line_items', message: 'names two offers (or an offer and none)', variant_id: l.variantId }]);
      }
      named.set(l.variantId, offerId);
    }
    const wanted = [...named].filter((e): e is [string, string] => e[1] !== null);
    if (wanted.length === 0) return new Map();
    const terms = await this.offers.terms(tx, [...new Set(wanted.map(([, offerId]) => offerId))]);
    const out = new Map<string, OfferTerms>();
    for (const [variantId, offerId] of wanted) {
      const offer = terms.get(offerId);
      if (!offer || offer.productId !== variants.get(variantId)!.productId) {
        throw AppError.unprocessable('OFFER_NOT_AVAILABLE', 'This offer is not for sale (or not of this variant)', [{ path: 'line_items', message: 'no such offer for sale', offer_id: offerId, variant_id: variantId }]);
      }
      out.set(variantId, offer);
    }
    return out;
  }

  /** The store's next number in this transaction: its counter row stays locked until the transaction ends (see `numberBefore`). */
  private async nextNumber(tx: Tx | SqlTx): Promise<number> {
    const [row] = await tx.query<{ last_number: number }>(NEXT_NUMBER_SQL, [tx.tenantId, FIRST_ORDER_NUMBER]);
    return Number(row.last_number);
  }

  /** An edit's revision of the order's lines and shipping, inside the caller's transaction (see `reviseOrder`). */
  async revise(tx: Tx, orderId: string, revision: OrderRevision): Promise<{ order: Order; lines: LineItem[] }> {
    return reviseOrder(tx, { shipping: this.shipping, settlement: this.settlement, offers: this.offers }, orderId, revision);
  }

  /**
   * pending, confirmed or paid → cancelled; the stock it holds is given back. Every registered
   * `OrderCancelGuard` is asked first, the order locked and nothing changed yet.
   */
  async cancel(id: string, reason?: string): Promise<Order> {
    return this.db.tenant(async (tx) => {
      const order = await lockOrder(tx, id);
      assertCan(order, 'cancel');
      for (const guard of this.cancelGuards()) await guard.check(tx, order);
      await this.shipping.releaseAll(tx, order.id);
      order.awaitingStockPaymentId = null;
      await move(tx, order, 'cancel', reason ?? null);
      await this.offers.orderChanged(tx, order);
      return order;
    });
  }

  /** Writes custom fields over the order's stored ones, in any state (checked by the caller: `CustomFields.changes`). */
  async setCustomFields(id: string, changes: CustomFieldValues): Promise<Order> {
    return this.db.tenant(async (tx) => {
      const order = await lockOrder(tx, id);
      order.customFields = { ...order.customFields, ...changes };
      order.updatedAt = tx.now();
      return order;
    });
  }

  /** A note in the order's history (another plugin's word on it, e.g. a refund of late money); the status stays. */
  async addNote(tx: Tx, orderId: string, note: string): Promise<Order> {
    return addHistoryNote(tx, await lockOrder(tx, orderId), note);
  }

  /**
   * Gives up `amount` of what the order is owed, for good, inside the caller's transaction: goods of
   * an order on account sent back, whose worth the company no longer owes. At most the total is
   * waived; `amount_due`, and what a payment of the order may still take, drop by it. The status
   * stays; a note in the history says why.
   */
  async waive(tx: Tx, orderId: string, amount: number, note: string): Promise<Order> {
    if (!Number.isSafeInteger(amount) || amount <= 0) throw new Error(`an order is waived a whole number of minor units above 0, not ${amount}`);
    const order = await lockOrder(tx, orderId);
    order.amountWaived = Math.min(order.total, order.amountWaived + amount);
    return addHistoryNote(tx, order, note);
  }

  /** paid → ready_to_ship (packed, waiting for the courier). */
  async readyToShip(id: string, note?: string): Promise<Order> {
    return this.db.tenant(async (tx) => move(tx, await lockOrder(tx, id), 'ready_to_ship', note ?? null));
  }

  /** ready_to_ship → paid: the operator found a problem. */
  async undoReadyToShip(id: string, reason: string): Promise<Order> {
    return this.db.tenant(async (tx) => move(tx, await lockOrder(tx, id), 'undo_ready_to_ship', reason));
  }

  /** ready_to_ship → in_transit: everything left is handed to the courier as one shipment. */
  async handToCourier(id: string, details: { carrier?: string; trackingNumber?: string; trackingUrl?: string; estimatedDelivery?: Date }): Promise<Order> {
    return this.db.tenant(async (tx) => {
      const order = await lockOrder(tx, id);
      assertCan(order, 'hand_to_courier');
      await this.shipping.ship(tx, order, await linesOf(tx, order.id), undefined, details);
      return move(tx, order, 'hand_to_courier', details.carrier ? `carrier ${details.carrier}` : null);
    });
  }

  /**
   * → fulfilled: delivery confirmed for an order in transit, or direct delivery (no courier) of a
   * paid order, whose items become one delivered shipment. Every shipment is marked delivered.
   */
  async deliver(id: string, note?: string): Promise<Order> {
    return this.db.tenant(async (tx) => {
      const order = await lockOrder(tx, id);
      assertCan(order, 'deliver');
      const lines = await linesOf(tx, order.id);
      if (lines.some((l) => l.quantity > l.fulfilledQuantity)) await this.shipping.ship(tx, order, lines, undefined, { status: 'delivered' });
      const last = await this.deliverAll(tx, order.id);
      return move(tx, order, 'deliver', note ?? null, last);
    });
  }

  /** Refunded by the payments plugin, inside its transaction; held stock is given back. */
  async markRefunded(tx: Tx, orderId: string, note: string | null = null): Promise<Order> {
    const order = await lockOrder(tx, orderId);
    assertCan(order, 'refund');
    await this.shipping.releaseAll(tx, order.id);
    await move(tx, order, 'refund', note);
    await this.offers.orderChanged(tx, order);
    return order;
  }

  /**
   * The payments plugin's refunds, inside its transaction: the order's payments as they stand are
   * recorded in its ledger, and once everything paid for it was refunded the order is `refunded`
   * (where its lifecycle allows it) and its held stock given back. A partial refund leaves the
   * state alone; `amount_refunded` shows it.
   */
  async recordRefunds(tx: Tx, orderId: string, payments: PaymentEntry[], note: string | null = null): Promise<Order> {
    const order = await lockOrder(tx, orderId);
    await recordPayments(tx, order, payments);
    if (order.amountPaid > 0 && order.amountRefunded >= order.amountPaid && orderMachine.can(order, 'refund')) {
      await this.shipping.releaseAll(tx, order.id);
      order.awaitingStockPaymentId = null;
      await move(tx, order, 'refund', note);
    }
    await this.offers.orderChanged(tx, order);
    return order;
  }

  /**
   * The `orders.payment-confirmed` job: the payment is recorded in the order's ledger (once per
   * payment); when the confirmed payments, net of refunds, cover the total, pending → confirmed and,
   * once its stock is reserved, confirmed → paid. A part payment leaves the order pending
   * (`amount_due` shows the rest). Short of stock, it stays confirmed and
   * orders.order.stock_shortage says why. Safe to run twice.
   */
  async paymentConfirmed(data: PaymentConfirmed): Promise<Order | null> {
    const parsed = PaymentConfirmedData.safeParse(data);
    if (!parsed.success) {
      this.logger.warn({ data, issues: parsed.error.issues }, 'payments.payment.confirmed with unusable data; ignored');
      return null;
    }
    const payment = parsed.data;
    return this.db.tenant(async (tx) => {
      const order = await tx.em.findOne(Order, { id: payment.order_id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
      if (!order) {
        this.logger.warn({ orderId: payment.order_id, paymentId: payment.payment_id }, 'payment confirmed for an unknown order');
        return null;
      }
      await recordPayments(tx, order, [{ payment_id: payment.payment_id, amount: payment.amount, currency: payment.currency, refunded_amount: 0 }]);
      // Paid for after it was cancelled or refunded (a 3-D Secure or a provider that answered late),
      // or in another currency: the money came in for nothing; the event tells the store to refund it.
      const reason = payment.currency !== order.currency ? 'currency' : order.status === 'cancelled' || order.status === 'refunded' ? 'late' : null;
      if (reason) {
        tx.publish('orders.order.payment_mismatch', {
          id: order.id, number: order.number, status: order.status, payment_id: payment.payment_id, reason,
          amount: payment.amount, currency: payment.currency, order_total: order.total, order_currency: order.currency,
        });
        return order;
      }
      return this.settlement.payIfCovered(tx, order, payment.payment_id);
    });
  }

  /**
   * The `orders.stock-arrived` job, after stock of a variant was added: the confirmed orders whose
   * payment is confirmed but that were short of stock and hold that variant, oldest first, try
   * their reservation again; each one that gets its stock moves on to paid. Safe to run twice.
   */
  async stockArrived(data: { variant_id?: unknown; delta?: unknown }): Promise<number> {
    if (typeof data.variant_id !== 'string' || typeof data.delta !== 'number' || data.delta <= 0) return 0;
    const waiting = await this.db.tenant(({ em }) =>
      em.execute<Array<{ id: string }>>(
        `select o.id from orders_order o
          where o.awaiting_stock_payment_id is not null and o.status = 'confirmed'
            and exists (select 1 from orders_line_item l where l.tenant_id = o.tenant_id and l.order_id = o.id and l.variant_id = ?)
          order by o.created_at, o.id limit 100`,
        [data.variant_id],
      ),
    );
    let paid = 0;
    for (const { id } of waiting) {
      // Still short: the error rolls back anything reserved on the way, and the order keeps waiting.
      const moved = await this.db.tenant(async (tx) => this.settlement.retry(tx, await lockOrder(tx, id))).catch((error: unknown) => {
        if (!(error instanceof AppError) || error.status === 400) this.logger.warn({ err: error, orderId: id }, 'restocked order not moved to paid');
        return false;
      });
      if (moved) paid += 1;
    }
    return paid;
  }

  /** Marks every shipment of the order delivered (a return's replacements aside); the last one (for the fulfilled event's tracking). */
  async deliverAll(tx: Tx, orderId: string): Promise<Fulfillment | null> {
    // A return's replacement is delivered on its own confirmation, not with the order's.
    const shipments = (await tx.em.find(Fulfillment, { orderId }, { orderBy: { createdAt: 'asc', id: 'asc' } })).filter((f) => !isReplacement(f));
    const at = tx.now();
    for (const f of shipments) {
      if (f.status === 'delivered') continue;
      f.status = 'delivered';
      f.deliveredAt = at;
      f.updatedAt = at;
      publishFulfillment(tx, 'orders.fulfillment.delivered', f);
    }
    return shipments[shipments.length - 1] ?? null;
  }
}

/** `Orders.placingReadsSql`'s column. */
function placingReadsFrom(column: unknown) {
  const read = jsonColumn<{ customer: Pick<Customer, 'id' | 'firstName' | 'lastName'> | null; stock: unknown }>(column);
  return { customer: read.customer, stock: stockTermsFrom(read.stock) };
}
