import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AppError, CustomFields, Database, ormOf, statementText, TenantContext, Tx, type SqlTx, type TxReader } from '@qhatu/core';
import { Discounts } from '@qhatu/plugin-discounts';
import { Order, Orders, STORE_SHIPPING_PRICES, type StoreShippingPrices } from '@qhatu/plugin-orders';
import { inject, injectable } from 'tsyringe';
import { Checkout, type CheckoutAddress, type CheckoutLine, type ShippingRate } from '../entities/checkout.js';
import { CHECKOUT_ABANDONED, CHECKOUT_COMPLETED, CHECKOUT_UPDATED, checkoutMachine } from '../machines/checkout.js';
import { CHECKOUT_ABANDONED_HOOKS, type CheckoutAbandonedHook } from './abandonment.js';
import { assertCustomer, Carts, lineFacts, writeLines, type Shopper } from './carts.js';
import { insertCheckout, lockForShipping, shippingReadSql, updateCheckout } from './checkout-rows.js';
import { assertShipsTo } from './markets.js';
import { CartPricing, refreshLine, type CartQuote, type LineToPrice, type PricingReads, type Sellable } from './pricing.js';
import { storeRate } from './shipping-prices.js';
import { checkoutEvent, taxedLines } from './views.js';

export const CHECKOUT_CREATED = 'checkout.checkout.created';
export const CHECKOUT_EVENTS = [CHECKOUT_CREATED, CHECKOUT_UPDATED, CHECKOUT_ABANDONED, CHECKOUT_COMPLETED] as const;

export interface CheckoutInput {
  cart_id: string;
  email: string;
  customer_id?: string | null;
  currency?: string;
}

type AddressInput = Omit<CheckoutAddress, 'phone'> & { phone?: string | null };

export interface ShippingInput {
  shipping_address: AddressInput;
  billing_address?: AddressInput | null;
  shipping_rate?: ShippingRate | null;
}

/** Order states reached only once a confirmed payment covered the order. */
const OPEN = new Set(['pending', 'shipping_set', 'payment_pending']);

/** A checkout as answered: the stored one, or the same priced now without being written. */
export type CheckoutState = Omit<Checkout, never>;

/** The store's own keys: every checkout of the store. */
const STORE: Shopper = { customerId: null };

const PAYMENT_VERIFIED = new Set(['paid', 'ready_to_ship', 'in_transit', 'partially_fulfilled', 'fulfilled']);

@injectable()
export class Checkouts {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Carts) private readonly carts: Carts,
    @inject(CartPricing) private readonly pricing: CartPricing,
    @inject(Orders) private readonly orders: Orders,
    @inject(Discounts) private readonly discounts: Discounts,
    @inject(CHECKOUT_ABANDONED_HOOKS) private readonly abandonedHooks: CheckoutAbandonedHook[],
    @inject(STORE_SHIPPING_PRICES) private readonly shippingPrices: StoreShippingPrices | null,
    @inject(CustomFields) private readonly fields: CustomFields,
  ) {}

  /**
   * Makes the checkout of a cart: reprices the cart from the catalog a last time, takes a snapshot
   * of its lines and totals, and freezes the cart. One checkout per cart. Without the ORM
   * (decision 0080): the cart's lock and read in one round trip, the writes with COMMIT in another.
   */
  async create(input: CheckoutInput, shopper: Shopper): Promise<Checkout> {
    if (shopper.customerId && input.customer_id && input.customer_id !== shopper.customerId) {
      throw AppError.forbidden('A customer can check out for themselves only');
    }
    const open = (checked: boolean) => this.db.write((sql) => this.open(sql, input, shopper, checked));
    try {
      return await open(false);
    } catch (error) {
      if (!(error instanceof CustomerToCheck)) throw error;
      // A customer the store's keys name for someone else's cart is checked first, then the checkout is made.
      await this.db.tenant((tx) => assertCustomer(tx, error.customerId));
      return open(true);
    }
  }

  private async open(sql: SqlTx, input: CheckoutInput, shopper: Shopper, customerChecked: boolean): Promise<Checkout> {
    const { cart, items: loaded, catalog, read } = await this.carts.locked(sql, input.cart_id, shopper);
    if (cart.checkoutId) {
      throw AppError.conflict('This cart already has a checkout', 'CHECKOUT_EXISTS', [{ path: 'body.cart_id', message: 'already checked out', checkout_id: cart.checkoutId }]);
    }
    if (input.currency && input.currency !== cart.currency) {
      throw AppError.unprocessable('CURRENCY_MISMATCH', `The cart is in ${cart.currency}`, [{ path: 'body.currency', message: `must be ${cart.currency}` }]);
    }
    if (input.customer_id && cart.customerId && input.customer_id !== cart.customerId) {
      throw AppError.unprocessable('CUSTOMER_MISMATCH', 'The cart belongs to another customer', [{ path: 'body.customer_id', message: "is not the cart's customer" }]);
    }
    if (input.customer_id && !shopper.customerId && input.customer_id !== cart.customerId && !customerChecked) throw new CustomerToCheck(input.customer_id);
    const before = new Map(loaded.map((item) => [item.id, lineFacts(item)]));
    const quote = await this.pricing.quote(sql, cart, loaded, catalog, undefined, read);
    if (quote.kept.length === 0) throw AppError.unprocessable('CART_EMPTY', 'The cart has no items that can be sold', [{ path: 'body.cart_id', message: 'is empty' }]);
    if (quote.totals.couponRefusal) {
      throw AppError.unprocessable('COUPON_INVALID', "The cart's coupon no longer applies; remove it or change the cart", [
        { path: 'body.cart_id', message: quote.totals.couponRefusal, reason: quote.totals.couponRefusal },
      ]);
    }
    const at = sql.now();
    // The cart as checked out: its lines refreshed from the catalog, the ones that can no longer be sold gone.
    quote.kept.forEach((item, n) => refreshLine(item, quote.lines[n], at));
    Object.assign(cart, quote.totals);
    const taxed = taxedLines(quote);
    const lines: CheckoutLine[] = quote.lines
      .map((line, n) => ({ line, out: taxed[n] }))
      .sort((a, b) => a.line.createdAt.getTime() - b.line.createdAt.getTime())
      .map(({ out }) => out);
    const checkout: Checkout = {
      id: randomUUID(),
      tenantId: sql.tenantId,
      cartId: cart.id,
      customerId: cart.customerId ?? input.customer_id ?? shopper.customerId ?? null,
      email: input.email.trim().toLowerCase(),
      status: 'pending',
      currency: cart.currency,
      marketId: cart.marketId,
      marketPricesIncludeTax: cart.marketPricesIncludeTax,
      lineItems: lines,
      couponCode: cart.couponCode,
      subtotal: cart.subtotal,
      shippingTotal: 0,
      discountTotal: cart.volumeDiscountTotal + cart.couponDiscount,
      taxTotal: cart.taxTotal,
      shippingTax: quote.taxes.shipping.amount,
      pricesIncludeTax: cart.pricesIncludeTax,
      total: cart.total,
      shippingAddress: null,
      billingAddress: null,
      shippingRate: null,
      orderId: null,
      abandonedAt: null,
      completedAt: null,
      createdAt: at,
      updatedAt: at,
    };
    writeLines(sql, before, quote.kept);
    sql.later(
      `update checkout_cart set checkout_id = ?, coupon_refusal = ?, item_count = ?, subtotal = ?, volume_discount_total = ?, coupon_discount = ?,
              tax_total = ?, prices_include_tax = ?, market_prices_include_tax = ?, total = ?
        where tenant_id = ? and id = ?`,
      [checkout.id, cart.couponRefusal, cart.itemCount, cart.subtotal, cart.volumeDiscountTotal, cart.couponDiscount, cart.taxTotal, cart.pricesIncludeTax,
        cart.marketPricesIncludeTax, cart.total, sql.tenantId, cart.id],
      { prepare: true },
    );
    insertCheckout(sql, checkout);
    sql.publish(CHECKOUT_CREATED, checkoutEvent(checkout));
    return checkout;
  }

  /**
   * The checkout as it will be charged. Until its order is placed that is the catalog's price
   * now, computed without writing (the shipping step stores it and places the order at it); from
   * then on the order's snapshot, which later price changes do not alter.
   */
  async get(id: string, shopper: Shopper): Promise<CheckoutState> {
    return this.db.tenant(async (tx) => {
      const checkout = await this.find(tx, id, shopper, false);
      if (!this.repriced(checkout)) return checkout;
      return { ...checkout, ...(await this.priceNow(tx, checkout)).prices };
    });
  }

  /** Whether the checkout follows the catalog still: open, and no order placed yet. */
  private repriced(checkout: Checkout): boolean {
    return !checkout.orderId && OPEN.has(checkout.status);
  }

  /**
   * The checkout's lines and totals at the catalog's prices now, the coupon judged again, taxed
   * where it ships (the store's own country before an address is given), shipping included.
   */
  private async priceNow(tx: TxReader, checkout: Checkout, catalog?: Map<string, Sellable>, read?: PricingReads) {
    const lines = checkout.lineItems.map((l, n) => ({ id: l.id, variantId: l.variant_id, quantity: l.quantity, createdAt: new Date(n), offerId: l.offer_id ?? null }));
    const quote = await this.pricing.quote(
      tx,
      { ...checkout, customerEmail: checkout.email },
      lines,
      catalog,
      { address: checkout.shippingAddress ?? null, shipping: checkout.shippingTotal },
      read,
    );
    const { subtotal, volumeDiscountTotal, couponDiscount, taxTotal, pricesIncludeTax, marketPricesIncludeTax, total } = quote.totals;
    return {
      quote,
      prices: {
        lineItems: taxedLines(quote),
        subtotal,
        discountTotal: volumeDiscountTotal + couponDiscount,
        taxTotal,
        shippingTax: quote.taxes.shipping.amount,
        pricesIncludeTax,
        marketPricesIncludeTax,
        total,
      },
    };
  }

  /**
   * The shipping step: addresses (billing defaults to shipping) and, optionally, the shipping rate,
   * charged at the store's price where the store prices shipping (`storeRate`).
   * Without a rate the checkout is `shipping_set`; with one its total is final, the order is placed
   * in this transaction (with the coupon's use) and the checkout awaits its payment. Once an order
   * exists the shipping step is closed: 409 CHECKOUT_ORDER_PLACED.
   *
   * Its statements (decisions 0080, 0102): the checkout locked and read with what its pricing and
   * its order read in one, the order, its lines and the checkout written with COMMIT; the order's
   * number is taken in a short transaction of its own before this one opens, in its BEGIN's round
   * trip (decision 0081), so that no checkout of the store waits for another's. Without the ORM
   * (decision 0114) unless a part of it needs it (a coupon's use, stock to hold, a seller's offer,
   * nothing to pay): that part starts it on the same transaction.
   */
  async setShipping(id: string, input: ShippingInput, shopper: Shopper): Promise<Checkout> {
    // The order's number, taken in a short transaction of its own in the round trip of this one's BEGIN.
    let number: number | undefined;
    const before = input.shipping_rate ? this.orders.numberBefore((taken) => (number = taken)) : undefined;
    return this.db.sqlFirst(async (tx) => {
      const found = await lockForShipping(tx, this.shippingRead(), id, input.shipping_address, input.shipping_rate);
      if (!found || (shopper.customerId && found.checkout.customerId !== shopper.customerId)) throw AppError.notFound('Checkout', 'CHECKOUT_NOT_FOUND');
      const { checkout, catalog, cartFields, placing, shippingPrice } = found;
      const read = this.pricing.placeReadsFrom(found.row);
      const action = input.shipping_rate ? 'await_payment' : 'set_addresses';
      // Refused before anything changes: a final checkout keeps its data.
      if (!checkoutMachine.can(checkout, action)) await checkoutMachine.apply(tx, checkout, action);
      if (checkout.orderId) {
        throw AppError.conflict('An order was placed for this checkout; abandon it to change the shipping step', 'CHECKOUT_ORDER_PLACED', [
          { path: 'params.id', message: 'has an order awaiting payment', order_id: checkout.orderId },
        ]);
      }
      checkout.shippingAddress = address(input.shipping_address);
      assertShipsTo(checkout.marketId, checkout.shippingAddress.country_code);
      checkout.billingAddress = address(input.billing_address ?? input.shipping_address);
      checkout.shippingRate = input.shipping_rate ? await storeRate(this.shippingPrices, tx, input.shipping_rate, checkout, shippingPrice) : null;
      checkout.shippingTotal = checkout.shippingRate?.price ?? 0;
      // Priced and taxed for this address and this shipping charge.
      const quote = await this.refreshPrices(tx, checkout, catalog, read);
      checkout.updatedAt = tx.now();
      // The order, its lines and the checkout go out together.
      return this.writesOf(tx, async (sql) => {
        if (action === 'await_payment') {
          const order = await this.placeOrder(tx, sql, checkout, { number, catalog: factsIn(checkout.currency, catalog, quote.catalogPrices), cartFields, placing });
          checkout.orderId = order.id;
          await checkoutMachine.apply(tx, checkout, action);
          // Nothing to pay (a 100 % coupon, free shipping): the order is paid already.
          if (order.status === 'paid') {
            checkout.completedAt = tx.now();
            await checkoutMachine.apply(tx, checkout, 'complete');
          }
        } else {
          await checkoutMachine.apply(tx, checkout, action);
        }
        updateCheckout(sql, checkout);
        return checkout;
      });
    }, TenantContext.tenantId(), { before });
  }

  /**
   * The writes of the shipping step's transaction: an ORM-free one queues them itself; on the ORM's,
   * a `write` joined to it, the last of the transaction, whose writes ride on COMMIT.
   */
  private writesOf<T>(tx: Tx | SqlTx, work: (sql: SqlTx) => Promise<T>): Promise<T> {
    return tx instanceof Tx ? this.db.write(work, tx.tenantId, { deferred: true }) : work(tx);
  }

  /** The shipping step's locking read: the checkout, its catalog facts, its pricing's reads at the address, its rate's price and its order's reads. */
  private readonly shippingRead = statementText(() =>
    shippingReadSql({
      pricing: (variantIdsSql, productIdsSql, place) => this.pricing.placeReadsSql('c.tenant_id', variantIdsSql, productIdsSql, place),
      placing: (emailSql, variantIdsSql) => this.orders.placingReadsSql('c.tenant_id', emailSql, variantIdsSql),
      shipping: this.shippingPrices ? (terms) => this.shippingPrices!.priceReadSql(terms) : undefined,
    }),
  );

  /** Stores the catalog's prices now as the checkout's snapshot: what the order will charge. */
  private async refreshPrices(tx: TxReader, checkout: Checkout, catalog?: Map<string, Sellable>, read?: PricingReads): Promise<CartQuote<LineToPrice>> {
    const { quote, prices } = await this.priceNow(tx, checkout, catalog, read);
    if (quote.lines.length === 0) {
      throw AppError.unprocessable('CART_EMPTY', 'None of the items of this checkout can be sold any more', [{ path: 'params.id', message: 'no sellable items' }]);
    }
    if (quote.totals.couponRefusal) {
      throw AppError.unprocessable('COUPON_INVALID', "The checkout's coupon no longer applies; abandon it and check the cart out again", [
        { path: 'params.id', message: quote.totals.couponRefusal, reason: quote.totals.couponRefusal },
      ]);
    }
    checkout.lineItems = prices.lineItems;
    checkout.subtotal = prices.subtotal;
    checkout.discountTotal = prices.discountTotal;
    checkout.taxTotal = prices.taxTotal;
    checkout.shippingTax = prices.shippingTax;
    checkout.pricesIncludeTax = prices.pricesIncludeTax;
    checkout.marketPricesIncludeTax = prices.marketPricesIncludeTax;
    checkout.total = prices.total;
    return quote;
  }

  /**
   * The order of the checkout, from its snapshot (just refreshed from the catalog), and the
   * coupon's use by that order; its rows are queued on `sql`, with the checkout's. The orders
   * plugin prices the order itself: should its price resolution differ from the checkout's, its
   * total would not be the one shown, and the step is refused (422 CHECKOUT_PRICES_CHANGED) rather
   * than charging another amount.
   */
  private async placeOrder(
    tx: Tx | SqlTx,
    sql: SqlTx,
    checkout: Checkout,
    read: { number?: number; catalog: Map<string, Sellable>; cartFields: Record<string, unknown>; placing: unknown },
  ): Promise<Order> {
    // The cart's custom fields that orders declare too (the cart is frozen: they are as checked out).
    const customFields = this.fields.carries('cart', 'order') ? this.fields.carry('cart', 'order', read.cartFields) : undefined;
    const { order, lines } = await this.orders.place(tx, {
      customerEmail: checkout.email,
      customerId: checkout.customerId,
      lines: checkout.lineItems.map((l) => ({ variantId: l.variant_id, quantity: l.quantity, price: l.unit_price, discount: l.discount_amount ?? l.volume_discount, offerId: l.offer_id ?? null })),
      shippingAddress: checkout.shippingAddress,
      shippingTotal: checkout.shippingTotal,
      discountTotal: checkout.discountTotal,
      // The tax just quoted for these lines: a live provider is not asked a second time.
      taxes: {
        pricesIncludeTax: checkout.pricesIncludeTax,
        lines: checkout.lineItems.map((l) => ({ variantId: l.variant_id, taxClass: l.tax_class ?? 'standard', rate: l.tax_rate ?? 0, amount: l.tax_amount ?? 0 })),
        shipping: { rate: 0, amount: checkout.shippingTax },
        total: checkout.taxTotal,
      },
      currency: checkout.currency,
      customFields,
      number: read.number,
      catalog: read.catalog,
      reads: read.placing,
      writes: sql,
    });
    // What the warehouses could not hold of a line the variant lets the store backorder.
    const backordered = new Map(lines.map((l) => [l.variantId, l.backorderedQuantity]));
    if ([...backordered.values()].some((n) => n > 0)) {
      checkout.lineItems = checkout.lineItems.map((l) => ({ ...l, backordered_quantity: backordered.get(l.variant_id) ?? 0 }));
    }
    if (order.total !== checkout.total || order.subtotal !== checkout.subtotal) {
      throw AppError.unprocessable('CHECKOUT_PRICES_CHANGED', 'The catalog prices changed since the checkout was made; abandon it and check the cart out again', [
        { path: 'params.id', message: 'prices changed', checkout_total: checkout.total, order_total: order.total },
      ]);
    }
    if (checkout.couponCode) {
      const afterVolume = checkout.lineItems.reduce((sum, l) => sum + l.total, 0);
      await this.discounts.apply(await ormOf(tx), {
        code: checkout.couponCode,
        orderAmount: afterVolume,
        currency: checkout.currency,
        customerId: checkout.customerId,
        customerEmail: checkout.email,
        // As the cart priced it: each line at what it costs after its volume discount.
        items: checkout.lineItems.map((l) => ({ productId: l.product_id, quantity: 1, unitPrice: l.total })),
        orderId: order.id,
      });
    }
    return order;
  }

  /**
   * pending, shipping_set or payment_pending → abandoned. The order placed for it, still awaiting
   * payment, is cancelled with it; once its payment is confirmed the checkout cannot be abandoned
   * (409 CHECKOUT_ORDER_PAID). The registered `CheckoutAbandonedHook`s run in this transaction
   * (the abandoned-carts plugin records the cart). Abandoning an abandoned checkout again answers
   * it as it is and does nothing.
   */
  async abandon(id: string, shopper: Shopper): Promise<Checkout> {
    return this.db.tenant(async (tx) => {
      const checkout = await this.find(tx, id, shopper, true);
      if (checkout.status === 'abandoned') return checkout;
      return this.abandonLocked(tx, checkout, 'checkout abandoned');
    });
  }

  /**
   * The hold sweep's abandon (decision 0059): the checkout, awaiting payment since before
   * `cutoff`, is abandoned as `abandon` does it (its order cancelled through `Orders.cancel`, so
   * the cancel guards are asked; the hooks run) while its order is still unpaid, nothing of it
   * paid. Answers whether it was abandoned; a guard's refusal is thrown and nothing changes.
   */
  async expire(id: string, cutoff: Date, reason: string): Promise<boolean> {
    return this.db.tenant(async (tx) => {
      const checkout = await this.find(tx, id, STORE, true);
      if (checkout.status !== 'payment_pending' || !checkout.orderId || checkout.updatedAt >= cutoff) return false;
      const order = await tx.em.findOne(Order, { id: checkout.orderId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
      // Paid (in part, too) meanwhile: the money decides, not the clock.
      if (order?.status !== 'pending' || order.amountPaid > order.amountRefunded) return false;
      await this.abandonLocked(tx, checkout, reason);
      return true;
    });
  }

  private async abandonLocked(tx: Tx, checkout: Checkout, reason: string): Promise<Checkout> {
    if (checkoutMachine.can(checkout, 'abandon')) {
      if (checkout.orderId) await this.cancelOrder(tx, checkout.orderId, reason);
      checkout.abandonedAt = tx.now();
      checkout.updatedAt = tx.now();
    }
    await checkoutMachine.apply(tx, checkout, 'abandon');
    // The hooks may read the tables: they see the checkout abandoned.
    await tx.em.flush();
    for (const hook of this.abandonedHooks) await hook.checkoutAbandoned(tx, checkout);
    return checkout;
  }

  /**
   * POST /complete: payment_pending → completed for the checkout's own order, once the order is
   * paid (or further on). The job that follows `orders.order.paid` does the same; whichever comes
   * second finds it completed and answers it as it is.
   */
  async complete(id: string, orderId: string, shopper: Shopper): Promise<Checkout> {
    return this.db.tenant(async (tx) => {
      const checkout = await this.find(tx, id, shopper, true);
      if (!checkout.orderId) {
        throw new AppError(409, 'INVALID_STATE_TRANSITION', `Cannot complete a checkout that is ${checkout.status}: it has no order yet`);
      }
      if (checkout.orderId !== orderId) {
        throw AppError.unprocessable('ORDER_MISMATCH', 'This is not the order of this checkout', [
          { path: 'body.order_id', message: 'is not the order placed by this checkout' },
        ]);
      }
      if (checkout.status === 'completed') return checkout;
      const order = await tx.em.findOne(Order, { id: orderId }, { refresh: true });
      if (!order || !PAYMENT_VERIFIED.has(order.status)) {
        throw new AppError(409, 'PAYMENT_NOT_CONFIRMED', 'The payment of this order is not confirmed yet', [
          { path: 'body.order_id', message: `the order is ${order?.status ?? 'gone'}`, order_status: order?.status ?? null },
        ]);
      }
      return this.completeNow(tx, checkout);
    });
  }

  private async completeNow(tx: Tx, checkout: Checkout): Promise<Checkout> {
    checkout.completedAt = tx.now();
    checkout.updatedAt = tx.now();
    return checkoutMachine.apply(tx, checkout, 'complete');
  }

  /** The orders plugin's own cancel, joined to this transaction; only while the order awaits payment. */
  private async cancelOrder(tx: Tx, orderId: string, reason: string): Promise<void> {
    const order = await tx.em.findOne(Order, { id: orderId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    // Cancelled already, or refunded (its stock could not be had): nothing left to cancel.
    if (!order || order.status === 'cancelled' || order.status === 'refunded') return;
    if (order.status !== 'pending') {
      throw AppError.conflict('The order of this checkout has a confirmed payment', 'CHECKOUT_ORDER_PAID', [
        { path: 'params.id', message: 'its order is paid', order_id: orderId, order_status: order.status },
      ]);
    }
    await this.orders.cancel(orderId, reason);
  }

  private async find(tx: Tx, id: string, shopper: Shopper, lock: boolean): Promise<Checkout> {
    const checkout = await tx.em.findOne(Checkout, { id }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {});
    if (!checkout || (shopper.customerId && checkout.customerId !== shopper.customerId)) throw AppError.notFound('Checkout', 'CHECKOUT_NOT_FOUND');
    return checkout;
  }
}

/**
 * The catalog's facts of the lines' variants in the checkout's currency, for the order it places:
 * each variant at its catalog price there as the checkout's pricing resolved it (the order takes
 * its currency and prices from its variants). A checkout in the variants' own currency hands them as read.
 */
function factsIn(currency: string, catalog: Map<string, Sellable>, prices: Map<string, number>): Map<string, Sellable> {
  if ([...catalog.values()].every((s) => s.variant.currency === currency)) return catalog;
  return new Map(
    [...catalog].map(([id, s]) => {
      const price = prices.get(id);
      return [id, price === undefined ? s : { ...s, variant: { ...s.variant, price, currency } }];
    }),
  );
}

function address(a: AddressInput): CheckoutAddress {
  return {
    first_name: a.first_name,
    last_name: a.last_name,
    address1: a.address1,
    city: a.city,
    province: a.province,
    country_code: a.country_code.toUpperCase(),
    zip: a.zip,
    phone: a.phone ?? null,
  };
}

/** Thrown inside the checkout's write when a customer named by the store's keys must be checked first (`assertCustomer`). */
class CustomerToCheck extends Error {
  constructor(readonly customerId: string) {
    super('The customer is checked before the checkout is made');
  }
}
