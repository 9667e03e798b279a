import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AppError, factVersionSql, jsonColumn, TenantContext, uuidArray, type KeptFacts, type StoreMoney, type Tx, type TxReader } from '@qhatu/core';
import { injectable } from 'tsyringe';
import { Coupon } from '../entities/coupon.js';
import { Redemption } from '../entities/redemption.js';
import { VolumeDiscount } from '../entities/volume-discount.js';
import { productsInCollections } from './catalog-references.js';
import { amountIn, couponTermsIn, moneyOf } from './currencies.js';
import { couponFromRow } from './rows.js';
import { availabilityRefusal, basisPointsOf, CODE_PATTERN, couponDiscount, couponInvalid, normalizeCode, REFUSALS, type Refusal } from './rules.js';

export const COUPON_APPLIED = 'discounts.coupon.applied';

/** A line of a cart or order, prices in minor units. */
export interface OrderLine {
  productId: string;
  quantity: number;
  unitPrice: number;
}

/** Who uses a coupon: by id, by e-mail (guests), or both. */
export interface CouponCustomer {
  customerId?: string | null;
  customerEmail?: string | null;
}

/** A cart or order to test a coupon against. */
export interface CouponCheck extends CouponCustomer {
  code: string;
  /** The order (or cart) subtotal, minor units: compared with min_order_amount, the base of `all` coupons. */
  orderAmount: number;
  /**
   * The order's currency: a fixed coupon gives its amount in it (set, or derived from the store's
   * default currency by the rate), its minimum likewise; none, and it is refused (`currency_mismatch`).
   * Absent: the coupon's own currency.
   */
  currency?: string | null;
  /** The order's products, when its lines are not known. */
  productIds?: string[];
  /** The order's lines: the base of product and collection coupons. */
  items?: OrderLine[];
}

export interface CouponVerdict {
  valid: boolean;
  /** Minor units; 0 when not valid. */
  discountAmount: number;
  reason: Refusal | null;
  message: string;
  coupon: Coupon | null;
}

export interface AppliedCoupon {
  coupon: Coupon;
  redemption: Redemption;
  discountAmount: number;
}

/** A volume tier as pricing reads it. */
export type VolumeTier = Pick<VolumeDiscount, 'id' | 'productId' | 'minQuantity' | 'type' | 'value' | 'currency' | 'amounts'>;

export interface VolumeQuote {
  /** Minor units off the line. */
  discountAmount: number;
  /** The tier that gave it: the highest min_quantity reached; null when none is. */
  tier: VolumeTier | null;
}

/**
 * Coupons and volume discounts as the cart and checkout use them: every method works in the
 * caller's transaction, so a coupon's use commits (or rolls back) with the order that uses it.
 */
@injectable()
export class Discounts {
  /** `volumeTiersSql`'s column kept in memory by product id, under the store's version of its volume discounts. */
  readonly volumeTierFacts = VOLUME_TIER_FACTS;

  /** Whether the coupon applies to this order and what it takes off; changes nothing. */
  async validate(tx: TxReader, check: CouponCheck): Promise<CouponVerdict> {
    const coupon = await this.findLive(tx, check.code);
    if (!coupon) return refused('not_found', null);
    return this.judge(tx, coupon, check, false);
  }

  /**
   * Validates the coupon against the order and records its use with the discount it computes,
   * holding the coupon's row lock until the caller's transaction ends: `max_uses` and
   * `max_uses_per_customer` hold however many checkouts run at once. Refusals are 422 COUPON_INVALID.
   */
  async apply(tx: Tx, check: CouponCheck & { orderId?: string | null }): Promise<AppliedCoupon> {
    const coupon = await this.findByCode(tx, check.code, true);
    if (!coupon) throw couponInvalid('not_found');
    const verdict = await this.judge(tx, coupon, check, true);
    if (!verdict.valid) {
      throw couponInvalid(verdict.reason!, { coupon_id: coupon.id, ...(verdict.reason === 'currency_mismatch' && { currency: check.currency }) });
    }
    await this.assertNotUsedBy(tx, coupon, check.orderId);
    return this.record(tx, coupon, { ...check, amount: verdict.discountAmount });
  }

  /**
   * Records a use whose amount the caller computed (POST /coupons/:id/apply): the coupon must be
   * usable now, by this customer, and a fixed amount cannot be exceeded.
   */
  async recordUse(tx: Tx, couponId: string, use: CouponCustomer & { orderId?: string | null; amount: number; currency?: string | null }): Promise<AppliedCoupon> {
    const coupon = await tx.em.findOne(Coupon, { id: couponId, deletedAt: null }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (!coupon) throw AppError.notFound('Coupon', 'COUPON_NOT_FOUND');
    const refusal = availabilityRefusal(coupon, tx.now()) ?? (await this.customerRefusal(tx, coupon, use, true));
    if (refusal) throw couponInvalid(refusal, { coupon_id: coupon.id });
    const terms = await couponTermsIn(tx, coupon, use.currency);
    if (!terms) throw couponInvalid('currency_mismatch', { coupon_id: coupon.id, path: 'body.currency', currency: use.currency });
    if (coupon.type === 'fixed_amount' && use.amount > terms.value) {
      throw couponInvalid('discount_amount_too_high', { coupon_id: coupon.id, path: 'body.discount_amount', maximum: terms.value });
    }
    await this.assertNotUsedBy(tx, coupon, use.orderId);
    return this.record(tx, coupon, use);
  }

  /** The live coupon with this code (case-insensitive), optionally locked for the rest of the transaction. */
  async findByCode(tx: Tx, code: string, lock = false): Promise<Coupon | null> {
    const normalized = normalizeCode(code);
    if (!CODE_PATTERN.test(normalized)) return null;
    return tx.em.findOne(
      Coupon,
      { code: normalized, deletedAt: null },
      lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {},
    );
  }

  /** The live coupon with this code (case-insensitive), read with SQL: no entity, no lock. */
  private async findLive(tx: TxReader, code: string): Promise<Coupon | null> {
    const normalized = normalizeCode(code);
    if (!CODE_PATTERN.test(normalized)) return null;
    const [row] = await tx.query('select * from discounts_coupon where tenant_id = ? and code = ? and deleted_at is null', [tx.tenantId, normalized]);
    return row ? couponFromRow(row) : null;
  }

  /** The volume discount of `quantity` units of one product at `unitPrice` (minor units of `currency`), rounded down. */
  async volumeDiscountFor(tx: TxReader, productId: string, quantity: number, unitPrice: number, currency?: string | null): Promise<VolumeQuote> {
    const [quote] = await this.volumeDiscountsFor(tx, [{ productId, quantity, unitPrice }], undefined, currency);
    return quote;
  }

  /**
   * Volume discounts of a whole cart in one statement. The quantity of a product is the sum over
   * its lines (variants), and each line gets that tier's share of its own total. `currency` is the
   * cart's (absent: the store's default): a percentage tier applies in any, a fixed one where it has
   * an amount (set, or derived from the default currency's); the highest tier reached that applies wins.
   */
  async volumeDiscountsFor(tx: TxReader, lines: OrderLine[], prefetched?: unknown, currency?: string | null): Promise<VolumeQuote[]> {
    const quantities = new Map<string, number>();
    for (const line of lines) quantities.set(line.productId, (quantities.get(line.productId) ?? 0) + line.quantity);
    if (quantities.size === 0) return [];
    const tiers =
      prefetched !== undefined
        ? tiersFrom(prefetched)
        : tiersFrom(
            (
              await tx.query<{ tiers: unknown }>(
                `with wanted as (select ?::uuid as tenant_id, ?::uuid[] as ids) select ${this.volumeTiersSql('(select tenant_id from wanted)', 'select unnest(ids) from wanted')} as tiers`,
                [tx.tenantId, uuidArray(quantities.keys())],
              )
            )[0].tiers,
          );
    // Only a fixed tier in another currency than its own needs the store's currencies.
    const perUnit = await fixedAmountsIn(tx, tiers, currency);
    const tierOf = new Map<string, VolumeTier | null>();
    for (const [productId, quantity] of quantities) {
      tierOf.set(productId, tiers.find((t) => t.productId === productId && t.minQuantity <= quantity && (t.type !== 'fixed_amount' || perUnit.get(t.id) != null)) ?? null);
    }
    return lines.map((line) => {
      const tier = tierOf.get(line.productId) ?? null;
      if (!tier) return { tier, discountAmount: 0 };
      const total = BigInt(line.quantity) * BigInt(line.unitPrice);
      if (tier.type !== 'fixed_amount') return { tier, discountAmount: basisPointsOf(total, tier.value) };
      const off = BigInt(line.quantity) * BigInt(perUnit.get(tier.id)!);
      return { tier, discountAmount: Number(off < total ? off : total) };
    });
  }

  /**
   * The volume tiers of the products `productIdsSql` selects, highest `min_quantity` first, as an
   * SQL expression of one JSON value: a caller reads them in a statement of its own and hands the
   * column to `volumeDiscountsFor` (a cart reads them in the round trip that locks it).
   */
  volumeTiersSql(tenantSql: string, productIdsSql: string): string {
    return `(select coalesce(json_agg(json_build_object('id', d.id, 'productId', d.product_id, 'minQuantity', d.min_quantity, 'type', d.type, 'value', d.value,
                                                        'currency', d.currency, 'amounts', d.amounts)
                                      order by d.min_quantity desc), '[]'::json)
               from (select distinct id from (${productIdsSql}) as named(id)) as wanted
               join discounts_volume_discount d on d.tenant_id = ${tenantSql} and d.product_id = wanted.id)`;
  }

  /** Every rule of the coupon against the order, in the order a shopper can act on them. */
  private async judge(tx: TxReader, coupon: Coupon, check: CouponCheck, forUse: boolean): Promise<CouponVerdict> {
    const available = availabilityRefusal(coupon, tx.now());
    if (available) return refused(available, coupon);
    // The coupon's value and minimum in the order's currency (no statement in its own currency).
    const terms = await couponTermsIn(tx, coupon, check.currency);
    const early =
      (terms ? null : 'currency_mismatch') ??
      (await this.customerRefusal(tx, coupon, check, forUse)) ??
      (check.orderAmount < terms!.minOrderAmount ? 'min_order_amount_not_met' : null);
    if (early) return refused(early, coupon);
    const base = await this.eligibleSubtotal(tx, coupon, check);
    if (typeof base === 'string') return refused(base, coupon);
    const discountAmount = couponDiscount({ type: coupon.type, value: terms!.value }, base);
    return { valid: true, discountAmount, reason: null, message: 'The coupon applies', coupon };
  }

  /**
   * What the coupon's share is computed on: the order amount for `all` coupons; for product and
   * collection coupons the eligible lines (capped at the order amount), or the whole order when
   * only product ids are known and every one of them is eligible.
   */
  private async eligibleSubtotal(tx: TxReader, coupon: Coupon, check: CouponCheck): Promise<number | Refusal> {
    if (coupon.applicableTo === 'all') return check.orderAmount;
    const named = check.items ? check.items.map((i) => i.productId) : (check.productIds ?? []);
    if (named.length === 0) return 'items_required';
    const products = [...new Set(named)];
    const eligible =
      coupon.applicableTo === 'products'
        ? new Set(products.filter((id) => coupon.applicableIds.includes(id)))
        : await productsInCollections(tx, coupon.applicableIds, products);
    if (eligible.size === 0) return 'not_applicable';
    if (!check.items) return eligible.size === products.length ? check.orderAmount : 'items_required';
    const sum = check.items.filter((i) => eligible.has(i.productId)).reduce((total, i) => total + BigInt(i.quantity) * BigInt(i.unitPrice), 0n);
    return Number(sum < BigInt(check.orderAmount) ? sum : BigInt(check.orderAmount));
  }

  /** The per-customer limit: counted by id or e-mail; a use needs a customer when there is a limit. */
  private async customerRefusal(tx: TxReader, coupon: Coupon, who: CouponCustomer, forUse: boolean): Promise<Refusal | null> {
    if (coupon.maxUsesPerCustomer == null) return null;
    const email = normalizeEmail(who.customerEmail);
    const customerId = who.customerId ?? null;
    if (!customerId && !email) return forUse ? 'customer_required' : null;
    const [{ used }] = await tx.query<{ used: number }>(
      `select count(*)::int as used from discounts_redemption
        where tenant_id = ? and coupon_id = ? and released_at is null and (customer_id = ? or customer_email = ?)`,
      [tx.tenantId, coupon.id, customerId, email],
    );
    return used >= coupon.maxUsesPerCustomer ? 'customer_usage_limit_reached' : null;
  }

  private async assertNotUsedBy(tx: Tx, coupon: Coupon, orderId: string | null | undefined): Promise<void> {
    if (!orderId || !(await tx.em.count(Redemption, { couponId: coupon.id, orderId }))) return;
    throw AppError.conflict('This order has already used this coupon', 'COUPON_ALREADY_APPLIED', [
      { path: 'body.order_id', message: 'has already used this coupon', coupon_id: coupon.id },
    ]);
  }

  /**
   * One more use, and its record, in the caller's transaction. The coupon row is locked already;
   * the increment is still conditional, so that `max_uses` holds by this statement alone.
   */
  /** The use is recorded in the order's currency (the coupon's when none is named). */
  private async record(tx: Tx, coupon: Coupon, use: CouponCustomer & { orderId?: string | null; amount: number; currency?: string | null }): Promise<AppliedCoupon> {
    const at = tx.now();
    const [row] = await tx.em.execute<Array<Record<string, unknown>>>(
      `update discounts_coupon set uses_count = uses_count + 1, updated_at = ?
        where tenant_id = ? and id = ? and (max_uses is null or uses_count < max_uses)
        returning *`,
      [at, tx.tenantId, coupon.id],
    );
    if (!row) throw couponInvalid('usage_limit_reached', { coupon_id: coupon.id });
    tx.em.map(Coupon, row); // the managed coupon shows the new count without being dirty
    const redemption = tx.em.create(Redemption, {
      id: randomUUID(),
      tenantId: tx.tenantId,
      couponId: coupon.id,
      customerId: use.customerId ?? null,
      customerEmail: normalizeEmail(use.customerEmail),
      orderId: use.orderId ?? null,
      amount: use.amount,
      currency: use.currency || coupon.currency,
      createdAt: at,
      releasedAt: null,
    });
    tx.publish(COUPON_APPLIED, {
      id: redemption.id,
      coupon_id: coupon.id,
      code: coupon.code,
      order_id: redemption.orderId,
      customer_id: redemption.customerId,
      amount: redemption.amount,
      currency: redemption.currency,
    });
    await tx.em.flush();
    return { coupon, redemption, discountAmount: use.amount };
  }
}

/** The topic whose version every change of a store's volume discounts bumps. */
export const VOLUME_TIER_TOPIC = 'discounts.volume';

const VOLUME_TIER_FACTS: KeptFacts<VolumeTier[]> = {
  topic: VOLUME_TIER_TOPIC,
  versionSql: (tenantSql) => factVersionSql(tenantSql, VOLUME_TIER_TOPIC),
  split(column, ids) {
    const tiers = tiersFrom(column);
    // Each product's tiers keep the column's order (highest `min_quantity` first).
    return ids.map((id) => [id, tiers.filter((t) => t.productId === id)] as const);
  },
  join(entry, ids) {
    const tiers: VolumeTier[] = [];
    for (const id of new Set(ids)) {
      const kept = entry(id) as VolumeTier[] | undefined;
      if (kept === undefined) return undefined;
      tiers.push(...kept);
    }
    return tiers;
  },
};

/** The column of `volumeTiersSql`. */
function tiersFrom(column: unknown): VolumeTier[] {
  return jsonColumn<VolumeTier[] | null>(column) ?? [];
}

/**
 * Minor units off each unit, by fixed tier, in `currency` (absent: the store's default); null where
 * a tier has no amount in it. A tier in `currency` itself needs no statement.
 */
async function fixedAmountsIn(tx: TxReader, tiers: readonly VolumeTier[], currency: string | null | undefined): Promise<Map<string, number | null>> {
  const out = new Map<string, number | null>();
  const fixed = tiers.filter((t) => t.type === 'fixed_amount');
  if (fixed.length === 0) return out;
  let money: StoreMoney | undefined;
  const wanted = currency || TenantContext.principal()?.money?.defaultCurrency || (money = await moneyOf(tx)).defaultCurrency;
  for (const t of fixed) {
    const own = t.currency.trim();
    out.set(t.id, wanted === own ? t.value : amountIn((money ??= await moneyOf(tx)), t.value, own, t.amounts, wanted));
  }
  return out;
}

function refused(reason: Refusal, coupon: Coupon | null): CouponVerdict {
  return { valid: false, discountAmount: 0, reason, message: REFUSALS[reason], coupon };
}

function normalizeEmail(email: string | null | undefined): string | null {
  return email ? email.trim().toLowerCase() : null;
}
