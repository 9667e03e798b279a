import { CurrencyCode, listQuery, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { VOLUME_DISCOUNT_TYPES } from '../entities/volume-discount.js';

export const VolumeDiscountCreate = z
  .strictObject({
    product_id: Uuid,
    min_quantity: z.number().int('must be a whole number').min(1, 'must be at least 1').max(1_000_000),
    type: z.enum(VOLUME_DISCOUNT_TYPES).optional().meta({ description: 'percentage (the only type); the default' }),
    value: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(10_000, 'must be at most 10000 (100.00%)')
      .meta({ description: 'Basis points: 100 = 1.00%' }),
    currency: CurrencyCode.optional().meta({ description: "Defaults to the store's currency" }),
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
