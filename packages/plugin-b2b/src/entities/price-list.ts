import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const RULE_TYPES = ['percentage', 'fixed'] as const;
export type RuleType = (typeof RULE_TYPES)[number];
export const RULE_SCOPES = ['all', 'category', 'product'] as const;
export type RuleScope = (typeof RULE_SCOPES)[number];

/** A wholesale price list: rules tried in order on the catalog price of each variant of its currency. */
export const PriceList = defineEntity({
  name: 'B2BPriceList',
  tableName: 'b2b_price_list',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    name: p.string(),
    currency: p.string(),
    description: p.text().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type PriceList = InferEntity<typeof PriceList>;

/** One rule of a price list; rules are tried by `position`, lowest first (gaps may appear when a product or collection goes). */
export const PriceRule = defineEntity({
  name: 'B2BPriceRule',
  tableName: 'b2b_price_rule',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    priceListId: p.uuid(),
    position: p.integer(),
    type: p.string().$type<RuleType>(),
    /** percentage: 1 to 100; fixed: minor units off the unit price. */
    value: p.integer(),
    appliesTo: p.string().$type<RuleScope>(),
    /** A collection of the catalog, when `appliesTo` is `category`. */
    categoryId: p.uuid().nullable(),
    productId: p.uuid().nullable(),
    createdAt: p.datetime(),
  },
});
export type PriceRule = InferEntity<typeof PriceRule>;
