import { CurrencyCode, listQuery, Money, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { COUPON_STATUSES, COUPON_TARGETS, COUPON_TYPES } from '../entities/coupon.js';

const MAX_INT = 2_147_483_647;

/** Minor units by currency code, for the store's other currencies (at most 20, as a store has). */
export const AmountsByCurrency = (min: number) =>
  z
    .record(CurrencyCode, z.number().int('must be a whole number').min(min, `must be at least ${min}`).max(Number.MAX_SAFE_INTEGER))
    .refine((amounts) => Object.keys(amounts).length <= 20, 'names at most 20 currencies');
const Count = z.number().int('must be a whole number').min(1, 'must be at least 1').max(MAX_INT);

/** Letters, digits, `-` and `_`; stored and compared upper-cased. */
export const CouponCode = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, - and _ only')
  .meta({ description: 'Case-insensitive; stored upper-cased', example: 'WINTER10' });

export const CouponCreate = z
  .strictObject({
    code: CouponCode,
    type: z.enum(COUPON_TYPES),
    value: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(Number.MAX_SAFE_INTEGER)
      .meta({ description: 'percentage: basis points, 1 to 10000 (100 = 1.00%); fixed_amount: minor units of currency' }),
    currency: CurrencyCode.optional().meta({ description: "The currency of value (fixed_amount) and min_order_amount. Defaults to the store's currency" }),
    amounts: AmountsByCurrency(1)
      .optional()
      .meta({
        description:
          "fixed_amount only: the value in the store's other currencies, minor units by code ({\"USD\": 500}). A currency left out gets the value derived by the store's rate when currency is the store's default; without a rate, the coupon does not apply in it. PATCH replaces the whole object",
        example: { USD: 500 },
      }),
    min_order_amount: Money.optional().meta({ description: 'Minor units of currency; the order amount must reach it. Defaults to 0' }),
    min_order_amounts: AmountsByCurrency(0)
      .optional()
      .meta({
        description:
          "min_order_amount in the store's other currencies, minor units by code. A currency left out gets it derived by the store's rate (when currency is the store's default). PATCH replaces the whole object",
        example: { USD: 2000 },
      }),
    max_uses: Count.nullable().optional().meta({ description: 'Uses in all; null or absent: unlimited' }),
    max_uses_per_customer: Count.nullable().optional().meta({ description: 'Uses per customer (by id or e-mail); null or absent: unlimited' }),
    applicable_to: z.enum(COUPON_TARGETS).optional().meta({ description: 'Defaults to all' }),
    applicable_ids: z
      .array(Uuid)
      .max(1000)
      .optional()
      .meta({ description: 'Product or collection ids of the store; required (at least one) when applicable_to is products or collections' }),
    starts_at: Timestamp.nullable().optional().meta({ description: 'null or absent: valid at once' }),
    expires_at: Timestamp.nullable().optional().meta({ description: 'null or absent: never expires; must be after starts_at' }),
  })
  .meta({ id: 'CouponCreate' });
export type CouponCreate = z.output<typeof CouponCreate>;

export const CouponPatch = CouponCreate.partial()
  .extend({ is_active: z.boolean().optional().meta({ description: 'false pauses the coupon; true resumes it' }) })
  .meta({ id: 'CouponPatch', description: 'Changes only the fields sent' });
export type CouponPatch = z.output<typeof CouponPatch>;

export const CouponOut = z
  .object({
    id: z.uuid(),
    code: z.string(),
    type: z.enum(COUPON_TYPES),
    value: z.number().int(),
    currency: z.string(),
    amounts: z.record(z.string(), z.number().int()).meta({ description: 'fixed_amount: the value set in other currencies of the store, minor units by code' }),
    min_order_amount: z.number().int(),
    min_order_amounts: z.record(z.string(), z.number().int()).meta({ description: 'The minimum set in other currencies of the store, minor units by code' }),
    max_uses: z.number().int().nullable(),
    max_uses_per_customer: z.number().int().nullable(),
    applicable_to: z.enum(COUPON_TARGETS),
    applicable_ids: z.array(z.uuid()),
    starts_at: Timestamp.nullable(),
    expires_at: Timestamp.nullable(),
    is_active: z.boolean(),
    uses_count: z.number().int(),
    status: z.enum(COUPON_STATUSES).meta({ description: 'Derived now from the fields and the clock' }),
    created_at: Timestamp,
    updated_at: Timestamp,
    deleted_at: Timestamp.nullable(),
  })
  .meta({ id: 'Coupon' });

export const CouponListQuery = listQuery({
  filters: {
    status: z.enum(COUPON_STATUSES.filter((s) => s !== 'deleted') as [string, ...string[]]),
    is_active: z.enum(['true', 'false']),
    type: z.enum(COUPON_TYPES),
    applicable_to: z.enum(COUPON_TARGETS),
  },
  sorts: ['created_at', 'code'],
  defaultSort: '-created_at',
  search: true,
});
export type CouponListQuery = z.output<typeof CouponListQuery>;

export const CouponCodeParams = z.object({ code: z.string().min(1).max(64) });

const CartLineIn = z.strictObject({
  product_id: Uuid,
  quantity: z.number().int('must be a whole number').min(1, 'must be at least 1').max(1_000_000),
  unit_price: Money.meta({ description: 'Minor units' }),
});

export const CouponValidation = z
  .strictObject({
    code: z.string().trim().min(1).max(200),
    order_amount: Money.meta({ description: 'The order (or cart) subtotal, minor units' }),
    customer_id: Uuid.nullable().optional(),
    customer_email: z.email().max(320).nullable().optional().meta({ description: 'Counts a guest for max_uses_per_customer' }),
    product_ids: z.array(Uuid).max(500).optional().meta({ description: 'The products of the order' }),
    items: z
      .array(CartLineIn)
      .max(500)
      .optional()
      .meta({ description: 'The order lines; when given, the discount of a product or collection coupon is computed on the eligible lines only' }),
    currency: CurrencyCode.optional().meta({
      description: "The order's currency (default: the coupon's): a fixed coupon gives its amount in it, set or derived by the store's rate; none is reason currency_mismatch",
    }),
  })
  .meta({ id: 'CouponValidation' });
export type CouponValidation = z.output<typeof CouponValidation>;

export const CouponValidationResult = z
  .object({
    valid: z.boolean(),
    discount_amount: z.number().int().meta({ description: 'Minor units; 0 when not valid' }),
    reason: z.string().meta({ description: "Empty when valid; otherwise a stable code such as expired or min_order_amount_not_met" }),
    message: z.string(),
    coupon_id: z.uuid().nullable(),
  })
  .meta({ id: 'CouponValidationResult' });

export const CouponApply = z
  .strictObject({
    customer_id: Uuid.nullable().optional(),
    customer_email: z.email().max(320).nullable().optional(),
    order_id: Uuid.nullable().optional().meta({ description: 'An order uses a coupon once' }),
    discount_amount: Money.meta({ description: 'Minor units taken off the order; at most the value of a fixed_amount coupon (in currency)' }),
    currency: CurrencyCode.optional().meta({ description: "The order's currency, the use's (default: the coupon's); one the coupon has no amount in is 422 COUPON_INVALID currency_mismatch" }),
  })
  .meta({ id: 'CouponApply' });
export type CouponApply = z.output<typeof CouponApply>;

export const CouponApplyResult = z
  .object({
    success: z.boolean(),
    redemption_id: z.uuid(),
    uses_count: z.number().int(),
  })
  .meta({ id: 'CouponApplyResult' });

export const RedemptionOut = z
  .object({
    id: z.uuid(),
    coupon_id: z.uuid(),
    customer_id: z.uuid().nullable(),
    customer_email: z.string().nullable(),
    order_id: z.uuid().nullable(),
    amount: z.number().int(),
    currency: z.string(),
    created_at: Timestamp,
    released_at: Timestamp.nullable().meta({ description: "Set when the order was cancelled and the use given back to the coupon" }),
  })
  .meta({ id: 'CouponRedemption' });

export const RedemptionListQuery = listQuery({ sorts: ['created_at'], defaultSort: '-created_at' });

