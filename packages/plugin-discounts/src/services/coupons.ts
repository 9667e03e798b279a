import { randomUUID } from 'node:crypto';
import { LockMode, raw, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, Database, paginate, searchWhere, Tenant, TenantContext, type Page, type PageRequest } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Coupon, type CouponStatus, type CouponTarget, type CouponType } from '../entities/coupon.js';
import { Redemption } from '../entities/redemption.js';
import type { CouponCreate, CouponPatch } from '../schemas/coupon.js';
import { requireTargets } from './catalog-references.js';
import { assertAmounts } from './currencies.js';
import { COUPON_APPLIED, Discounts, type AppliedCoupon, type CouponCheck, type CouponCustomer, type CouponVerdict } from './discounts.js';
import { assertCouponTerms, normalizeCode, type CouponTerms } from './rules.js';

export const COUPON_EVENTS = ['discounts.coupon.created', 'discounts.coupon.updated', 'discounts.coupon.deleted', COUPON_APPLIED] as const;

export interface CouponFilter {
  status?: Exclude<CouponStatus, 'deleted'>;
  is_active?: boolean;
  type?: CouponType;
  applicable_to?: CouponTarget;
  q?: string;
}

const toDate = (value: string | null | undefined) => (value ? new Date(value) : null);
const dedupe = (ids: string[]) => [...new Set(ids)];

/** Coupons as the store's admin keeps them; uses go through `Discounts`. The only writer of coupons. */
@injectable()
export class Coupons {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Discounts) private readonly discounts: Discounts,
  ) {}

  async create(input: CouponCreate): Promise<Coupon> {
    return this.db.tenant(async (tx) => {
      const { em } = tx;
      const code = normalizeCode(input.code);
      const terms: CouponTerms = {
        type: input.type,
        value: input.value,
        applicableTo: input.applicable_to ?? 'all',
        applicableIds: input.applicable_ids ?? [],
        startsAt: toDate(input.starts_at),
        expiresAt: toDate(input.expires_at),
      };
      assertCouponTerms(terms);
      const amounts = input.amounts ?? {};
      const minOrderAmounts = input.min_order_amounts ?? {};
      assertAmountsFit(terms.type, amounts);
      await assertCodeFree(em, code);
      if (terms.applicableTo !== 'all') await requireTargets(em, terms.applicableTo, terms.applicableIds, (i) => `body.applicable_ids.${i}`);
      const currency = input.currency ?? TenantContext.principal()?.money?.defaultCurrency ?? (await em.findOneOrFail(Tenant, { id: tx.tenantId })).currency;
      await assertAmounts(tx, currency, [
        { path: 'body.amounts', amounts, ownField: 'value' },
        { path: 'body.min_order_amounts', amounts: minOrderAmounts, ownField: 'min_order_amount' },
      ]);
      const at = tx.now();
      const coupon = em.create(Coupon, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        code,
        type: terms.type,
        value: terms.value,
        currency,
        amounts,
        minOrderAmount: input.min_order_amount ?? 0,
        minOrderAmounts,
        maxUses: input.max_uses ?? null,
        maxUsesPerCustomer: input.max_uses_per_customer ?? null,
        applicableTo: terms.applicableTo,
        applicableIds: dedupe(terms.applicableIds),
        startsAt: terms.startsAt,
        expiresAt: terms.expiresAt,
        isActive: true,
        usesCount: 0,
        deletedAt: null,
        createdAt: at,
        updatedAt: at,
      });
      tx.publish('discounts.coupon.created', couponEvent(coupon));
      await flush(em, code);
      return coupon;
    });
  }

  async list(page: PageRequest, filter: CouponFilter): Promise<Page<Coupon>> {
    return this.db.tenant(({ em, now }) => paginate(em, Coupon, listWhere(filter, now()), page));
  }

  /** A deleted coupon is still read by id: orders that used it refer to it. */
  async get(id: string): Promise<Coupon> {
    return this.db.tenant(async ({ em }) => {
      const coupon = await em.findOne(Coupon, { id });
      if (!coupon) throw AppError.notFound('Coupon', 'COUPON_NOT_FOUND');
      return coupon;
    });
  }

  async getByCode(code: string): Promise<Coupon> {
    return this.db.tenant(async (tx) => {
      const coupon = await this.discounts.findByCode(tx, code);
      if (!coupon) throw AppError.notFound('Coupon', 'COUPON_NOT_FOUND');
      return coupon;
    });
  }

  /** Changes the fields sent; the rules are checked on the coupon as it will be. */
  async update(id: string, patch: CouponPatch): Promise<Coupon> {
    return this.db.tenant(async (tx) => {
      const { em } = tx;
      const coupon = await lockLive(em, id);
      const terms = nextTerms(coupon, patch);
      assertCouponTerms(terms);
      const code = patch.code === undefined ? coupon.code : normalizeCode(patch.code);
      if (code !== coupon.code) await assertCodeFree(em, code);
      const targetsChanged = terms.applicableTo !== coupon.applicableTo || patch.applicable_ids !== undefined;
      if (targetsChanged && terms.applicableTo !== 'all') {
        await requireTargets(em, terms.applicableTo, terms.applicableIds, (i) => `body.applicable_ids.${i}`);
      }
      // A coupon turned into a percentage leaves its fixed amounts behind: a percentage applies in every currency.
      const amounts = patch.amounts ?? (terms.type === 'percentage' ? {} : coupon.amounts);
      const minOrderAmounts = patch.min_order_amounts ?? coupon.minOrderAmounts;
      const currency = patch.currency ?? coupon.currency;
      assertAmountsFit(terms.type, amounts);
      if (patch.amounts !== undefined || patch.min_order_amounts !== undefined || currency !== coupon.currency) {
        await assertAmounts(tx, currency, [
          { path: 'body.amounts', amounts, ownField: 'value' },
          { path: 'body.min_order_amounts', amounts: minOrderAmounts, ownField: 'min_order_amount' },
        ]);
      }
      const maxUses = patch.max_uses === undefined ? coupon.maxUses : patch.max_uses;
      if (maxUses != null && maxUses < coupon.usesCount) {
        throw AppError.conflict(`The coupon has been used ${coupon.usesCount} times; max_uses cannot be lower`, 'CONFLICT', [
          { path: 'body.max_uses', message: `must be at least uses_count (${coupon.usesCount})` },
        ]);
      }
      coupon.code = code;
      coupon.type = terms.type;
      coupon.value = terms.value;
      coupon.applicableTo = terms.applicableTo;
      coupon.applicableIds = dedupe(terms.applicableIds);
      coupon.startsAt = terms.startsAt;
      coupon.expiresAt = terms.expiresAt;
      coupon.maxUses = maxUses;
      coupon.currency = currency;
      coupon.amounts = amounts;
      coupon.minOrderAmounts = minOrderAmounts;
      if (patch.min_order_amount !== undefined) coupon.minOrderAmount = patch.min_order_amount;
      if (patch.max_uses_per_customer !== undefined) coupon.maxUsesPerCustomer = patch.max_uses_per_customer;
      if (patch.is_active !== undefined) coupon.isActive = patch.is_active;
      coupon.updatedAt = tx.now();
      tx.publish('discounts.coupon.updated', couponEvent(coupon));
      await flush(em, code);
      return coupon;
    });
  }

  /** Soft delete: the coupon stops validating and listing, and its code is free again; its uses stay. */
  async remove(id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const coupon = await lockLive(tx.em, id);
      const at = tx.now();
      coupon.deletedAt = at;
      coupon.isActive = false;
      coupon.updatedAt = at;
      tx.publish('discounts.coupon.deleted', { id: coupon.id, code: coupon.code, deleted_at: at.toISOString() });
      await tx.em.flush();
    });
  }

  /** The uses of a coupon (deleted ones too), newest first by default. */
  async redemptions(id: string, page: PageRequest): Promise<Page<Redemption>> {
    return this.db.tenant(async ({ em }) => {
      if (!(await em.count(Coupon, { id }))) throw AppError.notFound('Coupon', 'COUPON_NOT_FOUND');
      return paginate(em, Redemption, { couponId: id }, page);
    });
  }

  async validate(check: CouponCheck): Promise<CouponVerdict> {
    return this.db.tenant((tx) => this.discounts.validate(tx, check));
  }

  async apply(id: string, use: CouponCustomer & { orderId?: string | null; amount: number; currency?: string | null }): Promise<AppliedCoupon> {
    return this.db.tenant((tx) => this.discounts.recordUse(tx, id, use));
  }
}

/** The rule-bearing fields after the patch. Changing applicable_to to products or collections needs its ids. */
function nextTerms(coupon: Coupon, patch: CouponPatch): CouponTerms {
  const applicableTo = patch.applicable_to ?? coupon.applicableTo;
  let applicableIds = patch.applicable_ids ?? coupon.applicableIds;
  if (patch.applicable_ids === undefined && applicableTo !== coupon.applicableTo) applicableIds = [];
  return {
    type: patch.type ?? coupon.type,
    value: patch.value ?? coupon.value,
    applicableTo,
    applicableIds,
    startsAt: patch.starts_at === undefined ? (coupon.startsAt ?? null) : toDate(patch.starts_at),
    expiresAt: patch.expires_at === undefined ? (coupon.expiresAt ?? null) : toDate(patch.expires_at),
  };
}

/** The list's conditions; `status` is derived from the fields and the clock as `couponStatus` does. */
function listWhere(filter: CouponFilter, now: Date): Record<string, unknown> {
  const where: Record<string, unknown> = { deletedAt: null };
  const and: Record<string, unknown>[] = [];
  if (filter.is_active !== undefined) where.isActive = filter.is_active;
  if (filter.type) where.type = filter.type;
  if (filter.applicable_to) where.applicableTo = filter.applicable_to;
  if (filter.q) Object.assign(where, searchWhere('discounts_coupon', filter.q));
  const started = { $or: [{ startsAt: null }, { startsAt: { $lte: now } }] };
  const running = { $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] };
  const exhausted = { [raw((alias) => `${alias}.uses_count >= ${alias}.max_uses`)]: [] };
  switch (filter.status) {
    case 'inactive':
      and.push({ isActive: false });
      break;
    case 'expired':
      and.push({ isActive: true, expiresAt: { $lte: now } });
      break;
    case 'scheduled':
      and.push({ isActive: true, startsAt: { $gt: now } }, running);
      break;
    case 'exhausted':
      and.push({ isActive: true, maxUses: { $ne: null } }, started, running, exhausted);
      break;
    case 'active':
      and.push({ isActive: true }, started, running, { $or: [{ maxUses: null }, { [raw((alias) => `${alias}.uses_count < ${alias}.max_uses`)]: [] }] });
      break;
  }
  return and.length > 0 ? { ...where, $and: and } : where;
}

async function lockLive(em: EntityManager, id: string): Promise<Coupon> {
  const coupon = await em.findOne(Coupon, { id, deletedAt: null }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!coupon) throw AppError.notFound('Coupon', 'COUPON_NOT_FOUND');
  return coupon;
}

/** Amounts by currency are a fixed coupon's: a percentage applies in every currency (400). */
function assertAmountsFit(type: CouponType, amounts: Record<string, number>): void {
  if (type === 'percentage' && Object.keys(amounts).length > 0) {
    throw AppError.validation('body.amounts: is for fixed_amount coupons only', [{ path: 'body.amounts', message: 'is for fixed_amount coupons only: a percentage applies in every currency' }]);
  }
}

function codeTaken(code: string): AppError {
  return AppError.conflict(`The code ${code} is taken by another coupon`, 'CONFLICT', [{ path: 'body.code', message: 'is taken' }]);
}

async function assertCodeFree(em: EntityManager, code: string): Promise<void> {
  if (await em.count(Coupon, { code, deletedAt: null })) throw codeTaken(code);
}

/** Two creates racing for one code meet at the unique index: the loser gets the same 409. */
async function flush(em: EntityManager, code: string): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw codeTaken(code);
    throw error;
  }
}

function couponEvent(c: Coupon) {
  return {
    id: c.id,
    code: c.code,
    type: c.type,
    value: c.value,
    currency: c.currency,
    amounts: c.amounts,
    min_order_amounts: c.minOrderAmounts,
    is_active: c.isActive,
    starts_at: c.startsAt?.toISOString() ?? null,
    expires_at: c.expiresAt?.toISOString() ?? null,
    updated_at: c.updatedAt.toISOString(),
  };
}
