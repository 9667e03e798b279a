import type { SqlTx, Tx, CustomFieldValues } from '@qhatu/core';
import { sellablesFrom, sellablesSql } from '@qhatu/plugin-catalog';
import type { Checkout, CheckoutAddress, CheckoutLine, ShippingRate } from '../entities/checkout.js';
import type { PricingReads, Sellable } from './pricing.js';

/**
 * The checkout's rows in plain SQL, for its two hot steps (decision 0080): making a checkout and
 * the shipping step that places its order. Each column named here is named in the migrations too;
 * the checkout's tests fail when one is renamed and not here.
 */

const INSERT_CHECKOUT_SQL = `insert into checkout_checkout (tenant_id, id, cart_id, customer_id, email, status, currency, market_id, market_prices_include_tax,
    line_items, coupon_code, subtotal, shipping_total, discount_total, tax_total, shipping_tax, prices_include_tax, total, created_at, updated_at)
  values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** Queues the insert of a new checkout. */
export function insertCheckout(sql: SqlTx, c: Checkout): void {
  sql.later(
    INSERT_CHECKOUT_SQL,
    [sql.tenantId, c.id, c.cartId, c.customerId, c.email, c.status, c.currency, c.marketId, c.marketPricesIncludeTax, JSON.stringify(c.lineItems), c.couponCode, c.subtotal,
      c.shippingTotal, c.discountTotal, c.taxTotal, c.shippingTax, c.pricesIncludeTax, c.total, c.createdAt, c.updatedAt],
    { prepare: true },
  );
}

const UPDATE_CHECKOUT_SQL = `update checkout_checkout set status = ?, line_items = ?::jsonb, subtotal = ?, shipping_total = ?, discount_total = ?, tax_total = ?,
    shipping_tax = ?, prices_include_tax = ?, market_prices_include_tax = ?, total = ?, shipping_address = ?::jsonb, billing_address = ?::jsonb, shipping_rate = ?::jsonb, order_id = ?,
    completed_at = ?, updated_at = ?
  where tenant_id = ? and id = ?`;

const json = (value: unknown) => (value == null ? null : JSON.stringify(value));

/** Queues the write of what the shipping step changes of a checkout. */
export function updateCheckout(sql: SqlTx, c: Checkout): void {
  sql.later(UPDATE_CHECKOUT_SQL, [
    c.status, JSON.stringify(c.lineItems), c.subtotal, c.shippingTotal, c.discountTotal, c.taxTotal, c.shippingTax, c.pricesIncludeTax, c.marketPricesIncludeTax, c.total,
    json(c.shippingAddress), json(c.billingAddress), json(c.shippingRate), c.orderId, c.completedAt, c.updatedAt, sql.tenantId, c.id,
  ]);
}

const VARIANTS_OF_CHECKOUT = `select (l ->> 'variant_id')::uuid from jsonb_array_elements(c.line_items) as l`;

/** The shipping step's read (see `lockForShipping`); built once. */
let shippingRead: string | undefined;

function shippingReadSql(tiersSql: (tenantSql: string, productIdsSql: string) => string): string {
  shippingRead ??= `
    select c.*, k.custom_fields as cart_custom_fields,
           ${sellablesSql('c.tenant_id', VARIANTS_OF_CHECKOUT)} as sellables,
           ${tiersSql('c.tenant_id', `select v.product_id from catalog_variant v where v.tenant_id = c.tenant_id and v.id in (${VARIANTS_OF_CHECKOUT})`)} as tiers
      from checkout_checkout c left join checkout_cart k on k.tenant_id = c.tenant_id and k.id = c.cart_id
     where c.tenant_id = ? and c.id = ?
       for update of c`;
  return shippingRead;
}

/** What the shipping step reads first: the checkout (locked), its cart's custom fields, the catalog's facts of its lines and their volume tiers. */
export interface CheckoutForShipping {
  checkout: Checkout;
  cartFields: CustomFieldValues;
  catalog: Map<string, Sellable>;
  read: PricingReads;
}

/**
 * Locks the checkout for the rest of `tx` and reads, in the same statement, everything its
 * pricing reads but the tax of its address: one round trip. Null when the store has no such checkout.
 */
export async function lockForShipping(
  tx: Tx,
  id: string,
  tiersSql: (tenantSql: string, productIdsSql: string) => string,
): Promise<CheckoutForShipping | null> {
  const [row] = await tx.query<Record<string, unknown>>(shippingReadSql(tiersSql), [tx.tenantId, id]);
  if (!row) return null;
  return {
    checkout: checkoutFromRow(row),
    cartFields: (row.cart_custom_fields as CustomFieldValues | null) ?? {},
    catalog: sellablesFrom(row.sellables),
    read: { tiers: row.tiers },
  };
}

/** A `checkout_checkout` row read with SQL, as the entity's fields (bigints as numbers). */
function checkoutFromRow(row: Record<string, unknown>): Checkout {
  const date = (v: unknown) => (v == null ? null : new Date(v as string));
  return {
    id: row.id as string,
    tenantId: row.tenant_id as string,
    cartId: row.cart_id as string,
    customerId: (row.customer_id as string | null) ?? null,
    email: row.email as string,
    status: row.status as Checkout['status'],
    currency: (row.currency as string).trim(),
    marketId: (row.market_id as string | null) ?? null,
    marketPricesIncludeTax: (row.market_prices_include_tax as boolean | null) ?? null,
    lineItems: row.line_items as CheckoutLine[],
    couponCode: (row.coupon_code as string | null) ?? null,
    subtotal: Number(row.subtotal),
    shippingTotal: Number(row.shipping_total),
    discountTotal: Number(row.discount_total),
    taxTotal: Number(row.tax_total),
    shippingTax: Number(row.shipping_tax),
    pricesIncludeTax: Boolean(row.prices_include_tax),
    total: Number(row.total),
    shippingAddress: (row.shipping_address as CheckoutAddress | null) ?? null,
    billingAddress: (row.billing_address as CheckoutAddress | null) ?? null,
    shippingRate: (row.shipping_rate as ShippingRate | null) ?? null,
    orderId: (row.order_id as string | null) ?? null,
    abandonedAt: date(row.abandoned_at),
    completedAt: date(row.completed_at),
    createdAt: new Date(row.created_at as string),
    updatedAt: new Date(row.updated_at as string),
  };
}
