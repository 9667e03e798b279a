import { randomUUID } from 'node:crypto';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppError, Database, isAppError, type Tx } from '@qhatu/core';
import { Products } from '@qhatu/plugin-catalog';
import { Customers, type Customer } from '@qhatu/plugin-customers';
import { OrderReads, type OrderStatus } from '@qhatu/plugin-orders';
import { inject, injectable } from 'tsyringe';
import { Review } from '../entities/review.js';
import { reviewMachine } from '../machines/review.js';
import { reviewEvent } from './events.js';
import { optionalPlainText, plainText } from './plain-text.js';
import { countApproved } from './rating.js';
import { effective, readSettings, sqlOf, type ReviewSettings } from './settings.js';

/** Orders that stand as a purchase: paid for and not cancelled or refunded. */
export const PURCHASED: readonly OrderStatus[] = ['paid', 'ready_to_ship', 'in_transit', 'partially_fulfilled', 'fulfilled'];

export interface ReviewInput {
  product_id: string;
  customer_id: string;
  order_id?: string | null;
  rating: number;
  title?: string | null;
  body?: string | null;
}

/** Who writes: the store's admin for any customer, or a signed-in customer as themselves. */
export interface ReviewAuthor {
  kind: 'admin' | 'customer';
  customerId?: string;
}

export const reviewNotFound = () => AppError.notFound('Review', 'REVIEW_NOT_FOUND');

/** Writing and moderating reviews: the only place that writes them. */
@injectable()
export class Reviews {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Products) private readonly products: Products,
    @inject(Customers) private readonly customers: Customers,
    @inject(OrderReads) private readonly orders: OrderReads,
  ) {}

  /** A new review, `pending` (or approved at once when the settings say so). */
  async submit(input: ReviewInput, author: ReviewAuthor): Promise<Review> {
    if (author.kind === 'customer' && author.customerId !== input.customer_id) {
      throw AppError.forbidden('A customer may only write reviews as themselves');
    }
    return this.db.tenant(async (tx) => {
      await this.product(input.product_id, author.kind === 'customer');
      const { store, product } = await readSettings(sqlOf(tx), input.product_id);
      const settings = effective(store, product);
      if (!settings.enabled) throw AppError.unprocessable('REVIEWS_DISABLED', 'This store does not take reviews of this product');
      const customer = await this.customer(input.customer_id);
      const orderId = input.order_id ?? null;
      if (orderId) await this.checkPurchase(orderId, input.customer_id, input.product_id);
      else if (settings.verified_purchases_only) {
        throw AppError.unprocessable('VERIFIED_PURCHASE_REQUIRED', 'This store takes reviews of verified purchases only: name the order that holds the product', [
          { path: 'body.order_id', message: 'is required' },
        ]);
      }
      if (await tx.em.count(Review, { productId: input.product_id, customerId: input.customer_id })) throw alreadyReviewed();
      const review = this.add(tx, input, customer, orderId);
      if (autoApproves(settings, review.rating)) await this.move(tx, review, 'approve');
      await flushReview(tx);
      return review;
    });
  }

  /** approve, reject or unapprove; 409 INVALID_STATE_TRANSITION when the review's state forbids it. */
  async moderate(id: string, action: 'approve' | 'reject' | 'unapprove'): Promise<Review> {
    return this.db.tenant(async (tx) => {
      const review = await this.lock(tx, id);
      await this.move(tx, review, action);
      await tx.em.flush();
      return review;
    });
  }

  /** Deletes a review; an approved one leaves the product's rating. */
  async remove(id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const review = await this.lock(tx, id);
      if (review.status === 'approved') await countApproved(tx, review.productId, review.rating, -1);
      review.updatedAt = tx.now();
      tx.publish('reviews.review.deleted', { ...reviewEvent(review), deleted_at: review.updatedAt.toISOString() });
      tx.em.remove(review);
      await tx.em.flush();
    });
  }

  private add(tx: Tx, input: ReviewInput, customer: Customer, orderId: string | null): Review {
    const at = tx.now();
    const review = tx.em.create(Review, {
      id: randomUUID(),
      tenantId: tx.tenantId,
      productId: input.product_id,
      customerId: input.customer_id,
      orderId,
      verifiedPurchase: orderId !== null,
      authorName: authorName(customer),
      rating: input.rating,
      title: optionalPlainText(input.title),
      body: optionalPlainText(input.body),
      status: 'pending',
      moderatedAt: null,
      createdAt: at,
      updatedAt: at,
    });
    tx.publish('reviews.review.created', reviewEvent(review));
    return review;
  }

  /** The move, its time, its event (the machine's) and the product's rating, in `tx`. */
  private async move(tx: Tx, review: Review, action: 'approve' | 'reject' | 'unapprove'): Promise<void> {
    const wasApproved = review.status === 'approved';
    review.updatedAt = review.moderatedAt = tx.now();
    await reviewMachine.apply(tx, review, action);
    const isApproved = review.status === 'approved';
    if (wasApproved !== isApproved) await countApproved(tx, review.productId, review.rating, isApproved ? 1 : -1);
  }

  private async lock(tx: Tx, id: string): Promise<Review> {
    const review = await tx.em.findOne(Review, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!review) throw reviewNotFound();
    return review;
  }

  /** The product must be the store's (and on sale, for a customer): else 422 PRODUCT_NOT_FOUND. */
  private async product(id: string, activeOnly: boolean): Promise<void> {
    await referenced(() => this.products.get(id, { activeOnly }), 'PRODUCT_NOT_FOUND', `Product ${id} is not a product of this store`, 'body.product_id');
  }

  private async customer(id: string): Promise<Customer> {
    return referenced(() => this.customers.get(id), 'CUSTOMER_NOT_FOUND', `Customer ${id} is not a customer of this store`, 'body.customer_id');
  }

  /** A verified purchase: the customer's own order, paid for, holding the product; else 422. */
  private async checkPurchase(orderId: string, customerId: string, productId: string): Promise<void> {
    // Another customer's order reads as no order at all: a review does not reveal whose it is.
    const { order, lines } = await referenced(
      () => this.orders.get(orderId, customerId),
      'ORDER_NOT_FOUND',
      'This order is not an order of this customer',
      'body.order_id',
    );
    if (!lines.some((line) => line.productId === productId)) {
      throw AppError.unprocessable('PRODUCT_NOT_IN_ORDER', 'This order does not hold the product reviewed', [{ path: 'body.order_id', message: 'does not hold the product' }]);
    }
    if (!PURCHASED.includes(order.status)) {
      throw AppError.unprocessable('ORDER_NOT_PAID', `An order that is ${order.status} does not prove a purchase`, [
        { path: 'body.order_id', message: `must be paid for (${PURCHASED.join(', ')})` },
      ]);
    }
  }
}

function autoApproves(settings: ReviewSettings, rating: number): boolean {
  return settings.auto_approve && rating >= settings.auto_approve_min_rating;
}

/** "Ana M.": the first name and the initial of the last (plain text), never the e-mail. */
function authorName(c: Customer): string {
  const first = plainText(c.firstName);
  const initial = plainText(c.lastName).charAt(0);
  return [first, initial ? `${initial.toUpperCase()}.` : ''].filter(Boolean).join(' ');
}

const alreadyReviewed = () =>
  AppError.conflict('This customer has already reviewed this product', 'REVIEW_ALREADY_EXISTS', [{ path: 'body.product_id', message: 'already reviewed by this customer' }]);

/** A record a body refers to: its 404 becomes the 422 of an unknown reference. */
async function referenced<T>(find: () => Promise<T>, code: string, message: string, path: string): Promise<T> {
  try {
    return await find();
  } catch (error) {
    if (isAppError(error) && error.status === 404) throw AppError.unprocessable(code, message, [{ path, message: 'is unknown' }]);
    throw error;
  }
}

/** Flushes, turning a lost race for the one review per customer and product into the same 409 as the check. */
async function flushReview(tx: Tx): Promise<void> {
  try {
    await tx.em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw alreadyReviewed();
    throw error;
  }
}
