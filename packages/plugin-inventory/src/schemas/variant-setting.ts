import { listQuery, Timestamp } from '@qhatu/core';
import { z } from 'zod';
import { BooleanText } from './stock.js';

export const VariantSettingReplace = z
  .strictObject({
    tracked: z.boolean().nullable().optional().meta({
      description: 'true: the store keeps its stock (sold only with a reservation); false: sold without one; absent or null: tracked once the variant has a stock record in a warehouse',
    }),
    allow_backorder: z.boolean().optional().meta({ description: 'Sell a tracked variant beyond what is available: the rest is backordered until stock arrives (default false)' }),
  })
  .meta({ id: 'InventoryVariantSettingReplace' });
export type VariantSettingReplace = z.output<typeof VariantSettingReplace>;

export const VariantSettingOut = z
  .object({
    variant_id: z.uuid(),
    product_id: z.uuid(),
    sku: z.string().nullable(),
    tracked: z.boolean().nullable().meta({ description: 'As the store set it; null: automatic' }),
    allow_backorder: z.boolean(),
    is_tracked: z.boolean().meta({ description: 'Whether sales of it reserve stock now: tracked, or (automatic) it has a stock record' }),
    has_stock_record: z.boolean().meta({ description: 'Whether a warehouse has a stock record of it' }),
    created_at: Timestamp.nullable().meta({ description: 'null: the store never set it (the defaults apply)' }),
    updated_at: Timestamp.nullable(),
  })
  .meta({ id: 'InventoryVariantSetting' });

export const VariantSettingListQuery = listQuery({
  sorts: ['created_at', 'updated_at'],
  defaultSort: '-updated_at',
  filters: { tracked: BooleanText, allow_backorder: BooleanText },
});
export type VariantSettingListQuery = z.output<typeof VariantSettingListQuery>;
