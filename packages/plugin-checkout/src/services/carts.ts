import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AppError, Database, joinedColumns, joinedEntity, Tenant, type Tx } from '@qhatu/core';
import { Customer } from '@qhatu/plugin-customers';
import { Discounts } from '@qhatu/plugin-discounts';
import { inject, injectable } from 'tsyringe';
import { Cart } from '../entities/cart.js';
import { CartItem } from '../entities/cart-item.js';
import { Checkout } from '../entities/checkout.js';
import { CartPricing } from './pricing.js';
import { CHECKOUT_SETTINGS, type CheckoutSettings } from './settings.js';
import { cartEvent, pricedCart, type CartView } from './views.js';

export const CART_CREATED = 'checkout.cart.created';
export const CART_UPDATED = 'checkout.cart.updated';
export const CART_EVENTS = [CART_CREATED, CART_UPDATED] as const;

/** Who is calling: a customer (their own carts only) or the store's keys (any cart of the store). */
export interface Shopper {
  customerId: string | null;
}

export interface CartInput {
  customer_id?: string | null;
  session_id?: string | null;
  currency?: string;
}

export interface CartItemInput {
  variant_id: string;
  quantity: number;
  /** Checked against the variant when sent; everything else a client may send is the catalog's to say. */
  product_id?: string;
  /** A seller's offer of the variant's product (see `addOffer`). */
  offer_id?: string;
}

/** A line named by its variant (REST) or by its own id (GraphQL). */
export type LineRef = { variantId: string } | { itemId: string };

@injectable()
export class Carts {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(CartPricing) private readonly pricing: CartPricing,
    @inject(Discounts) private readonly discounts: Discounts,
    @inject(CHECKOUT_SETTINGS) private readonly settings: CheckoutSettings,
  ) {}

  async create(input: CartInput, shopper: Shopper): Promise<CartView> {
    if (shopper.customerId && input.customer_id && input.customer_id !== shopper.customerId) {
      throw AppError.forbidden('A customer can make carts for themselves only');
    }
    return this.db.tenant(async (tx) => {
      if (!shopper.customerId && input.customer_id) await assertCustomer(tx, input.customer_id);
      const at = tx.now();
      const currency = input.currency ?? (await tx.em.findOneOrFail(Tenant, { id: tx.tenantId })).currency;
      const cart = tx.em.create(Cart, {
        ...blankCart(tx, at, this.settings.cartTtlMs),
        customerId: shopper.customerId ?? input.customer_id ?? null,
        sessionId: input.session_id ?? null,
        currency,
      });
      tx.publish(CART_CREATED, cartEvent(cart));
      return { cart, items: [] };
    });
  }

  /**
   * The cart priced now (catalog prices, volume discounts, the coupon still valid?), computed
   * without writing: the answer is what a checkout of it would charge. A frozen cart is answered
   * as it was checked out; its checkout says what is charged.
   */
  async get(id: string, shopper: Shopper): Promise<CartView> {
    return this.db.tenant(async (tx) => {
      const cart = await this.find(tx, id, shopper, false);
      const items = await tx.em.find(CartItem, { cartId: cart.id });
      if (cart.checkoutId) return { cart, items };
      const { lines, totals } = await this.pricing.quote(tx, cart, items);
      return { cart: pricedCart(cart, totals), items: lines };
    });
  }

  /**
   * For a recovery link (the caller vouches for it; no shopper check), in the caller's
   * transaction: the cart to go on with. An open cart is itself, priced now; a cart frozen by an
   * abandoned checkout is copied into a new open cart (customer, session, currency, coupon and
   * lines; priced and stored now); a cart whose checkout is live or completed is answered as it is.
   * Returns the cart and whether it is a new one. 404 CART_NOT_FOUND, 410 CART_EXPIRED.
   */
  async restore(tx: Tx, cartId: string): Promise<CartView & { copied: boolean }> {
    const cart = await this.find(tx, cartId, { customerId: null }, true);
    const items = await tx.em.find(CartItem, { cartId: cart.id });
    if (!cart.checkoutId) {
      const { lines, totals } = await this.pricing.quote(tx, cart, items);
      return { cart: pricedCart(cart, totals), items: lines, copied: false };
    }
    const checkout = await tx.em.findOne(Checkout, { id: cart.checkoutId });
    if (checkout?.status !== 'abandoned') return { cart, items, copied: false };
    const at = tx.now();
    const copy = tx.em.create(Cart, {
      ...blankCart(tx, at, this.settings.cartTtlMs),
      customerId: cart.customerId,
      sessionId: cart.sessionId,
      currency: cart.currency,
      couponCode: cart.couponCode,
    });
    const lines = items.map((item) =>
      tx.em.create(CartItem, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        cartId: copy.id,
        variantId: item.variantId,
        productId: item.productId,
        title: item.title,
        variantTitle: item.variantTitle,
        sku: item.sku,
        quantity: item.quantity,
        unitPrice: item.unitPrice,
        volumeDiscount: 0,
        requiresShipping: item.requiresShipping,
        imageUrl: item.imageUrl,
        weightGrams: item.weightGrams,
        taxable: item.taxable,
        offerId: item.offerId,
        // The lines keep their order.
        createdAt: item.createdAt,
        updatedAt: at,
      }),
    );
    const kept = await this.pricing.reprice(tx, copy, lines);
    tx.publish(CART_CREATED, cartEvent(copy));
    return { cart: copy, items: kept, copied: true };
  }

  /** Adds a variant at its catalog price; the same variant again raises the line's quantity. */
  async addItem(id: string, input: CartItemInput, shopper: Shopper): Promise<CartView> {
    return this.change(id, shopper, async (tx, cart, items) => {
      const catalog = await this.pricing.catalogOf(tx, [...items.map((i) => i.variantId), input.variant_id]);
      const sellable = catalog.get(input.variant_id);
      if (!sellable || (input.product_id && input.product_id !== sellable.product.id)) {
        throw AppError.unprocessable('VARIANT_NOT_FOUND', 'This variant is not in the store', [
          { path: sellable ? 'body.product_id' : 'body.variant_id', message: sellable ? 'is not the product of this variant' : 'no such variant' },
        ]);
      }
      if (sellable.product.status !== 'active') {
        throw AppError.unprocessable('PRODUCT_NOT_AVAILABLE', 'This product is not for sale', [{ path: 'body.variant_id', message: `its product is ${sellable.product.status}` }]);
      }
      if (sellable.variant.currency !== cart.currency) {
        throw AppError.unprocessable('CURRENCY_MISMATCH', `This variant is priced in ${sellable.variant.currency}, the cart in ${cart.currency}`, [
          { path: 'body.variant_id', message: 'has another currency than the cart' },
        ]);
      }
      const existing = items.find((i) => i.variantId === input.variant_id);
      if (existing) {
        existing.quantity += input.quantity;
        existing.updatedAt = tx.now();
        return { items, catalog };
      }
      const item = tx.em.create(CartItem, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        cartId: cart.id,
        variantId: input.variant_id,
        productId: sellable.product.id,
        title: sellable.product.title,
        variantTitle: null,
        sku: null,
        quantity: input.quantity,
        unitPrice: sellable.variant.price,
        volumeDiscount: 0,
        requiresShipping: true,
        imageUrl: null,
        weightGrams: null,
        taxable: true,
        createdAt: tx.now(),
        updatedAt: tx.now(),
      });
      return { items: [...items, item], catalog };
    });
  }

  /**
   * Adds a variant bought on a seller's offer (a marketplace), at the offer's price. The offer must
   * be for sale and of the variant's product (422 OFFER_NOT_AVAILABLE) and have the units left (409
   * OFFER_OUT_OF_STOCK; the units are held when the order is placed). A variant is in a cart once,
   * on the store's stock or on one offer (409 OFFER_MISMATCH).
   */
  async addOffer(id: string, input: CartItemInput & { offer_id: string }, shopper: Shopper): Promise<CartView> {
    return this.change(id, shopper, async (tx, cart, items) => {
      const existing = items.find((i) => i.variantId === input.variant_id);
      if (existing && existing.offerId !== input.offer_id) {
        throw AppError.conflict('This variant is already in the cart from another seller (or the store); remove that line first', 'OFFER_MISMATCH', [
          { path: 'body.offer_id', message: 'the line of this variant has another offer', offer_id: existing.offerId ?? null },
        ]);
      }
      const catalog = await this.pricing.catalogOf(tx, [...items.map((i) => i.variantId), input.variant_id]);
      const sellable = catalog.get(input.variant_id);
      const offer = (await this.pricing.offersOf(tx, [{ offerId: input.offer_id }])).get(input.offer_id);
      if (!sellable || sellable.product.status !== 'active' || sellable.variant.currency !== cart.currency || (input.product_id && input.product_id !== sellable.product.id)) {
        throw AppError.unprocessable('VARIANT_NOT_FOUND', 'This variant is not for sale in this cart', [{ path: 'body.variant_id', message: 'no such variant for sale in this currency' }]);
      }
      if (!offer || offer.productId !== sellable.product.id) {
        throw AppError.unprocessable('OFFER_NOT_AVAILABLE', 'This offer is not for sale, or is not of this variant', [{ path: 'body.offer_id', message: 'no such offer for sale' }]);
      }
      const quantity = (existing?.quantity ?? 0) + input.quantity;
      if (quantity > offer.available) {
        throw AppError.conflict(`The seller has ${offer.available} left of this offer`, 'OFFER_OUT_OF_STOCK', [{ path: 'body.quantity', message: `at most ${offer.available} in all`, available: offer.available }]);
      }
      if (existing) {
        existing.quantity = quantity;
        existing.updatedAt = tx.now();
        return { items, catalog };
      }
      const at = tx.now();
      const item = tx.em.create(CartItem, {
        id: randomUUID(), tenantId: tx.tenantId, cartId: cart.id, variantId: input.variant_id, productId: sellable.product.id,
        title: sellable.product.title, variantTitle: null, sku: null, quantity, unitPrice: sellable.variant.price, volumeDiscount: 0,
        requiresShipping: true, imageUrl: null, weightGrams: null, taxable: true, offerId: input.offer_id, createdAt: at, updatedAt: at,
      });
      return { items: [...items, item], catalog };
    });
  }

  async setQuantity(id: string, ref: LineRef, quantity: number, shopper: Shopper): Promise<CartView> {
    return this.change(id, shopper, async (tx, _cart, items) => {
      const item = lineOf(items, ref);
      if (item.quantity !== quantity) {
        item.quantity = quantity;
        item.updatedAt = tx.now();
      }
      return { items };
    });
  }

  async removeItem(id: string, ref: LineRef, shopper: Shopper): Promise<CartView> {
    return this.change(id, shopper, async (tx, _cart, items) => {
      const item = lineOf(items, ref);
      tx.em.remove(item);
      return { items: items.filter((i) => i !== item) };
    });
  }

  /** Sets the cart's coupon when it applies to the cart now; otherwise 422 COUPON_INVALID with the reason. */
  async applyCoupon(id: string, code: string, shopper: Shopper): Promise<CartView> {
    return this.change(id, shopper, async (tx, cart, items) => {
      const coupon = await this.discounts.findByCode(tx, code);
      cart.couponCode = coupon?.code ?? code;
      return { items, requireCoupon: true };
    });
  }

  async removeCoupon(id: string, shopper: Shopper): Promise<CartView> {
    return this.change(id, shopper, async (_tx, cart, items) => {
      cart.couponCode = null;
      return { items };
    });
  }

  /**
   * One change to an open cart: lock it, load its lines, apply `work`, reprice everything from
   * the catalog, move the expiry, publish `checkout.cart.updated`.
   */
  private change(
    id: string,
    shopper: Shopper,
    work: (tx: Tx, cart: Cart, items: CartItem[]) => Promise<{ items: CartItem[]; catalog?: Awaited<ReturnType<CartPricing['catalogOf']>>; requireCoupon?: boolean }>,
  ): Promise<CartView> {
    return this.db.tenant(async (tx) => {
      const { cart, items: loaded } = await this.lockWithLines(tx, id, shopper);
      if (cart.checkoutId) {
        throw AppError.conflict('This cart has a checkout and can no longer change', 'CART_FROZEN', [{ message: 'frozen by a checkout', checkout_id: cart.checkoutId }]);
      }
      const { items, catalog, requireCoupon } = await work(tx, cart, loaded);
      const kept = await this.pricing.reprice(tx, cart, items, catalog);
      if (requireCoupon && cart.couponRefusal) {
        throw AppError.unprocessable('COUPON_INVALID', 'This coupon does not apply to this cart', [
          { path: 'body.code', message: cart.couponRefusal, reason: cart.couponRefusal },
        ]);
      }
      const at = tx.now();
      cart.updatedAt = at;
      cart.expiresAt = new Date(at.getTime() + this.settings.cartTtlMs);
      tx.publish(CART_UPDATED, cartEvent(cart));
      return { cart, items: kept };
    });
  }

  /** The cart, if the caller may see it, and still alive; locked for the rest of the transaction when asked. */
  async find(tx: Tx, id: string, shopper: Shopper, lock: boolean): Promise<Cart> {
    const cart = await tx.em.findOne(Cart, { id }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {});
    return alive(tx, cart, shopper);
  }

  /** `find` with the lock, and the cart's lines, in one statement (a change's first read). */
  private async lockWithLines(tx: Tx, id: string, shopper: Shopper): Promise<{ cart: Cart; items: CartItem[] }> {
    const rows = await tx.em.execute<Array<Record<string, unknown>>>(
      `select ${joinedColumns(tx.em, Cart, 'c', 'cart')}, ${joinedColumns(tx.em, CartItem, 'i', 'item')}
         from checkout_cart c left join checkout_cart_item i on i.tenant_id = c.tenant_id and i.cart_id = c.id
        where c.tenant_id = ? and c.id = ?
        order by i.created_at, i.id
          for update of c`,
      [tx.tenantId, id],
    );
    const cart = rows.length ? joinedEntity(tx.em, Cart, rows[0], 'cart') : null;
    const items = rows.flatMap((row) => joinedEntity(tx.em, CartItem, row, 'item') ?? []);
    return { cart: alive(tx, cart, shopper), items };
  }
}

/** The cart when the shopper may see it and it has not expired: 404 CART_NOT_FOUND, 410 CART_EXPIRED. */
function alive(tx: Tx, cart: Cart | null, shopper: Shopper): Cart {
  // Another customer's cart is answered like a missing one: cart ids are not to be probed.
  if (!cart || (shopper.customerId && cart.customerId !== shopper.customerId)) throw AppError.notFound('Cart', 'CART_NOT_FOUND');
  if (cart.expiresAt.getTime() <= tx.now().getTime()) {
    throw new AppError(410, 'CART_EXPIRED', 'This cart has expired', [{ message: 'expired', expires_at: cart.expiresAt.toISOString() }]);
  }
  return cart;
}

/** A new, empty cart of the tenant, living `ttlMs` from `at`. */
function blankCart(tx: Tx, at: Date, ttlMs: number) {
  return {
    id: randomUUID(),
    tenantId: tx.tenantId,
    customerId: null,
    sessionId: null,
    couponCode: null,
    couponRefusal: null,
    itemCount: 0,
    subtotal: 0,
    volumeDiscountTotal: 0,
    couponDiscount: 0,
    taxTotal: 0,
    pricesIncludeTax: false,
    total: 0,
    checkoutId: null,
    expiresAt: new Date(at.getTime() + ttlMs),
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * A customer named by store keys must be a customer of this store (another store's or nobody's is
 * 422 CUSTOMER_NOT_FOUND, like any unknown reference) and not disabled. A customer token's own id
 * is its own customer.
 */
export async function assertCustomer(tx: Tx, customerId: string): Promise<void> {
  const customer = await tx.em.findOne(Customer, { id: customerId });
  if (!customer) {
    throw AppError.unprocessable('CUSTOMER_NOT_FOUND', 'This customer is not a customer of the store', [{ path: 'body.customer_id', message: 'no such customer' }]);
  }
  if (customer.status !== 'active') {
    throw AppError.unprocessable('CUSTOMER_DISABLED', 'This customer is disabled', [{ path: 'body.customer_id', message: `the customer is ${customer.status}` }]);
  }
}

function lineOf(items: CartItem[], ref: LineRef): CartItem {
  const item = 'variantId' in ref ? items.find((i) => i.variantId === ref.variantId) : items.find((i) => i.id === ref.itemId);
  if (!item) throw AppError.notFound('Item in the cart', 'ITEM_NOT_FOUND');
  return item;
}
