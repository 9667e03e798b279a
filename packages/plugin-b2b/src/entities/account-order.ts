import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** An order placed on account for a B2B customer; open until paid, cancelled or refunded. */
export const AccountOrder = defineEntity({
  name: 'B2BAccountOrder',
  tableName: 'b2b_account_order',
  properties: {
    tenantId: p.uuid().primary(),
    orderId: p.uuid().primary(),
    b2bCustomerId: p.uuid(),
    quoteId: p.uuid(),
    total: p.bigint('number'),
    currency: p.string(),
    /** What returns of the order set against it (minor units): goods the company sent back owe nothing. */
    credited: p.bigint('number'),
    /** When it was seen paid, cancelled, refunded or credited in full: it no longer counts against the credit. */
    settledAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});
export type AccountOrder = InferEntity<typeof AccountOrder>;

/**
 * Goods of an order on account given back (a return refunded to the account): their worth is set
 * against what the company owes for the order. `applied` is what it took off the open balance; the
 * rest (what the company had paid already) goes back through the order's payments. Once per source.
 */
export const AccountCredit = defineEntity({
  name: 'B2BAccountCredit',
  tableName: 'b2b_account_credit',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    orderId: p.uuid(),
    b2bCustomerId: p.uuid(),
    amount: p.bigint('number'),
    applied: p.bigint('number'),
    reason: p.text(),
    /** What gave it: `return` (plugin-returns) or another plugin's kind, with its id. */
    sourceType: p.string(),
    sourceId: p.string(),
    createdAt: p.datetime(),
  },
});
export type AccountCredit = InferEntity<typeof AccountCredit>;

/** What an order line of a B2B buyer was priced at: the catalog price, the list and its rule. */
export const OrderPrice = defineEntity({
  name: 'B2BOrderPrice',
  tableName: 'b2b_order_price',
  properties: {
    tenantId: p.uuid().primary(),
    orderId: p.uuid().primary(),
    variantId: p.uuid().primary(),
    b2bCustomerId: p.uuid(),
    quoteId: p.uuid().nullable(),
    catalogPrice: p.bigint('number'),
    unitPrice: p.bigint('number'),
    priceListId: p.uuid().nullable(),
    ruleId: p.uuid().nullable(),
    /** The rule as it was (it may be deleted later): `{type, value, applies_to, category_id, product_id}`. */
    rule: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime(),
  },
});
export type OrderPrice = InferEntity<typeof OrderPrice>;
