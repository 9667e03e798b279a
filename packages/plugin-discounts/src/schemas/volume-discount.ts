import { CurrencyCode, listQuery, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { VOLUME_DISCOUNT_TYPES } from '../entities/volume-discount.js';
import { AmountsByCurrency } from './coupon.js';

export const VolumeDiscountCreate = z
  .strictObject({
    product_id: Uuid,
    min_quantity: z.number().int('must be a whole number').min(1, 'must be at least 1').max(1_000_000),
    type: z.enum(VOLUME_DISCOUNT_TYPES).optional().meta({ description: 'percentage (the default; applies in every currency) or fixed_amount (minor units off each unit)' }),
    value: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(2_147_483_647)
      .meta({ description: 'percentage: basis points, 100 = 1.00%, at most 10000; fixed_amount: minor units of currency off each unit' }),
    currency: CurrencyCode.optional().meta({ description: "The currency of a fixed_amount value. Defaults to the store's currency" }),
    amounts: AmountsByCurrency(1)
      .optional()
      .meta({
        description:
          "fixed_amount only: the value in the store's other currencies, minor units by code. A currency left out gets it derived by the store's rate when currency is the store's default; without a rate, the tier does not apply to carts in it",
        example: { USD: 50 },
      }),
  })
  .superRefine((t, ctx) => {
    if ((t.type ?? 'percentage') === 'percentage' && t.value > 10_000) ctx.addIssue({ code: 'custom', path: ['value'], message: 'must be at most 10000 (100.00%)' });
    if ((t.type ?? 'percentage') === 'percentage' && t.amounts && Object.keys(t.amounts).length > 0) {
      ctx.addIssue({ code: 'custom', path: ['amounts'], message: 'is for fixed_amount tiers only: a percentage applies in every currency' });
    }
  })
  .meta({ id: 'VolumeDiscountCreate' });
export type VolumeDiscountCreate = z.output<typeof VolumeDiscountCreate>;

export const VolumeDiscountOut = z
  .object({
    id: z.uuid(),
    product_id: z.uuid(),
    min_quantity: z.number().int(),
    type: z.enum(VOLUME_DISCOUNT_TYPES),
    value: z.number().int(),
    currency: z.string(),
    amounts: z.record(z.string(), z.number().int()).meta({ description: 'fixed_amount: the value set in other currencies of the store, minor units by code' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'VolumeDiscount' });

export const VolumeDiscountListQuery = listQuery({
  filters: { product_id: Uuid },
  sorts: ['created_at', 'min_quantity'],
  defaultSort: '-created_at',
});
export type VolumeDiscountListQuery = z.output<typeof VolumeDiscountListQuery>;
