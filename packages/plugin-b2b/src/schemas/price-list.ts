import { CurrencyCode, listQuery, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { RULE_SCOPES, RULE_TYPES } from '../entities/price-list.js';
import { OptionalText, Text } from './common.js';

export const MAX_RULES = 200;

export const PriceListCreate = z
  .strictObject({
    name: Text(200),
    currency: CurrencyCode.meta({ description: "One of the store's currencies (else 422 CURRENCY_NOT_LISTED): the list prices carts and orders in it only; it cannot be changed" }),
    description: OptionalText(2000),
  })
  .meta({ id: 'B2BPriceListCreate' });
export type PriceListCreate = z.output<typeof PriceListCreate>;

export const PriceListPatch = z
  .strictObject({ name: Text(200).optional(), description: OptionalText(2000).optional() })
  .meta({ id: 'B2BPriceListPatch' });
export type PriceListPatch = z.output<typeof PriceListPatch>;

export const RuleCreate = z
  .strictObject({
    type: z.enum(RULE_TYPES),
    value: z.number().int('must be a whole number').min(1, 'must be at least 1').max(2_147_483_647).meta({ description: 'percentage: 1 to 100; fixed: minor units off the unit price' }),
    applies_to: z.enum(RULE_SCOPES),
    category_id: Uuid.optional().meta({ description: 'A collection of the catalog; required when applies_to is category' }),
    product_id: Uuid.optional().meta({ description: 'Required when applies_to is product' }),
    position: z.number().int().min(1).optional().meta({ description: 'Where the rule goes (1 is tried first); default after the last rule' }),
  })
  .superRefine((r, ctx) => {
    if (r.type === 'percentage' && r.value > 100) ctx.addIssue({ code: 'custom', path: ['value'], message: 'a percentage is 1 to 100' });
    if (r.applies_to === 'category' && !r.category_id) ctx.addIssue({ code: 'custom', path: ['category_id'], message: 'is required when applies_to is category' });
    if (r.applies_to === 'product' && !r.product_id) ctx.addIssue({ code: 'custom', path: ['product_id'], message: 'is required when applies_to is product' });
    if (r.applies_to !== 'category' && r.category_id) ctx.addIssue({ code: 'custom', path: ['category_id'], message: 'is only for applies_to category' });
    if (r.applies_to !== 'product' && r.product_id) ctx.addIssue({ code: 'custom', path: ['product_id'], message: 'is only for applies_to product' });
  })
  .meta({ id: 'B2BPriceRuleCreate' });
export type RuleCreate = z.output<typeof RuleCreate>;

export const RuleOut = z
  .object({
    id: z.uuid(),
    price_list_id: z.uuid(),
    position: z.number().int(),
    type: z.enum(RULE_TYPES),
    value: z.number().int(),
    applies_to: z.enum(RULE_SCOPES),
    category_id: z.uuid().nullable(),
    product_id: z.uuid().nullable(),
    created_at: Timestamp,
  })
  .meta({ id: 'B2BPriceRule' });

export const PriceListOut = z
  .object({
    id: z.uuid(),
    name: z.string(),
    currency: z.string(),
    description: z.string().nullable(),
    rules: z.array(RuleOut).meta({ description: 'Tried in this order; the first that matches a variant prices it' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'B2BPriceList' });

export const PriceListListQuery = listQuery({ sorts: ['created_at', 'name'], defaultSort: '-created_at' });
export type PriceListListQuery = z.output<typeof PriceListListQuery>;

export const RuleParams = z.object({ list_id: Uuid, rule_id: Uuid });
