import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AppError, Database, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { CartItem } from '../entities/cart-item.js';
import { Checkout, type CheckoutAddress, type CheckoutLine, type ShippingRate } from '../entities/checkout.js';
import { CHECKOUT_ABANDONED, CHECKOUT_UPDATED, checkoutMachine } from '../machines/checkout.js';
import { Carts, type Shopper } from './carts.js';
import { CartPricing } from './pricing.js';
import { checkoutEvent, lineOut } from './views.js';

export const CHECKOUT_CREATED = 'checkout.checkout.created';
export const CHECKOUT_EVENTS = [CHECKOUT_CREATED, CHECKOUT_UPDATED, CHECKOUT_ABANDONED] as const;

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

@injectable()
export class Checkouts {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Carts) private readonly carts: Carts,
    @inject(CartPricing) private readonly pricing: CartPricing,
  ) {}

  /**
   * Makes the checkout of a cart: reprices the cart from the catalog a last time, takes a snapshot
   * of its lines and totals, and freezes the cart. One checkout per cart.
   */
  async create(input: CheckoutInput, shopper: Shopper): Promise<Checkout> {
    if (shopper.customerId && input.customer_id && input.customer_id !== shopper.customerId) {
      throw AppError.forbidden('A customer can check out for themselves only');
    }
    return this.db.tenant(async (tx) => {
      const cart = await this.carts.find(tx, input.cart_id, shopper, true);
      if (cart.checkoutId) {
        throw AppError.conflict('This cart already has a checkout', 'CHECKOUT_EXISTS', [{ path: 'body.cart_id', message: 'already checked out', checkout_id: cart.checkoutId }]);
      }
      if (input.currency && input.currency !== cart.currency) {
        throw AppError.unprocessable('CURRENCY_MISMATCH', `The cart is in ${cart.currency}`, [{ path: 'body.currency', message: `must be ${cart.currency}` }]);
      }
      if (input.customer_id && cart.customerId && input.customer_id !== cart.customerId) {
        throw AppError.unprocessable('CUSTOMER_MISMATCH', 'The cart belongs to another customer', [{ path: 'body.customer_id', message: "is not the cart's customer" }]);
      }
      const loaded = await tx.em.find(CartItem, { cartId: cart.id });
      const items = await this.pricing.reprice(tx, cart, loaded, await this.pricing.catalogOf(tx, loaded.map((i) => i.variantId)));
      if (items.length === 0) throw AppError.unprocessable('CART_EMPTY', 'The cart has no items that can be sold', [{ path: 'body.cart_id', message: 'is empty' }]);
      if (cart.couponRefusal) {
        throw AppError.unprocessable('COUPON_INVALID', "The cart's coupon no longer applies; remove it or change the cart", [
          { path: 'body.cart_id', message: cart.couponRefusal, reason: cart.couponRefusal },
        ]);
      }
      const at = tx.now();
      const lines: CheckoutLine[] = items.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()).map(lineOut);
      const checkout = tx.em.create(Checkout, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        cartId: cart.id,
        customerId: cart.customerId ?? input.customer_id ?? shopper.customerId ?? null,
        email: input.email.trim().toLowerCase(),
        status: 'pending',
        currency: cart.currency,
        lineItems: lines,
        couponCode: cart.couponCode,
        subtotal: cart.subtotal,
        shippingTotal: 0,
        discountTotal: cart.volumeDiscountTotal + cart.couponDiscount,
        taxTotal: 0,
        total: cart.total,
        shippingAddress: null,
        billingAddress: null,
        shippingRate: null,
        abandonedAt: null,
        createdAt: at,
        updatedAt: at,
      });
      cart.checkoutId = checkout.id;
      tx.publish(CHECKOUT_CREATED, checkoutEvent(checkout));
      return checkout;
    });
  }

  async get(id: string, shopper: Shopper): Promise<Checkout> {
    return this.db.tenant((tx) => this.find(tx, id, shopper, false));
  }

  /**
   * The shipping step: addresses (billing defaults to shipping) and, optionally, the shipping rate.
   * Without a rate the checkout is `shipping_set`; with one its total is final and it awaits payment.
   */
  async setShipping(id: string, input: ShippingInput, shopper: Shopper): Promise<Checkout> {
    return this.db.tenant(async (tx) => {
      const checkout = await this.find(tx, id, shopper, true);
      const action = input.shipping_rate ? 'await_payment' : 'set_addresses';
      // Refused before anything changes: a final checkout keeps its data.
      if (!checkoutMachine.can(checkout, action)) await checkoutMachine.apply(tx, checkout, action);
      checkout.shippingAddress = address(input.shipping_address);
      checkout.billingAddress = address(input.billing_address ?? input.shipping_address);
      checkout.shippingRate = input.shipping_rate ?? null;
      checkout.shippingTotal = input.shipping_rate?.price ?? 0;
      checkout.total = checkout.subtotal - checkout.discountTotal + checkout.shippingTotal + checkout.taxTotal;
      checkout.updatedAt = tx.now();
      return checkoutMachine.apply(tx, checkout, action);
    });
  }

  async abandon(id: string, shopper: Shopper): Promise<Checkout> {
    return this.db.tenant(async (tx) => {
      const checkout = await this.find(tx, id, shopper, true);
      if (checkoutMachine.can(checkout, 'abandon')) {
        checkout.abandonedAt = tx.now();
        checkout.updatedAt = tx.now();
      }
      return checkoutMachine.apply(tx, checkout, 'abandon');
    });
  }

  private async find(tx: Tx, id: string, shopper: Shopper, lock: boolean): Promise<Checkout> {
    const checkout = await tx.em.findOne(Checkout, { id }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {});
    if (!checkout || (shopper.customerId && checkout.customerId !== shopper.customerId)) throw AppError.notFound('Checkout', 'CHECKOUT_NOT_FOUND');
    return checkout;
  }
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
