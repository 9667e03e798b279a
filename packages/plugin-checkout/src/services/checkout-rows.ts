import type { SqlTx, TxReader, CustomFieldValues } from '@qhatu/core';
import { sellablesFrom, sellablesSql } from '@qhatu/plugin-catalog';
import type { Checkout, CheckoutAddress, CheckoutLine, ShippingRate } from '../entities/checkout.js';
import type { Sellable } from './pricing.js';

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
  ], { prepare: true });
}

const VARIANTS_OF_CHECKOUT = `select (l ->> 'variant_id')::uuid from jsonb_array_elements(c.line_items) as l`;
const PRODUCTS_OF_CHECKOUT = `select (l ->> 'product_id')::uuid from jsonb_array_elements(c.line_items) as l`;

/** What the shipping step reads besides the checkout and its catalog facts, as columns of its locking read (`lockForShipping`). */
export interface ShippingReadColumns {
  /**
   * The pricing's reads at the address (`tiers`, and the tax calculator's `place_tax_facts` where it
   * has them), given SQL of the checkout's variants and products and of the address's country and province.
   */
  pricing(variantIdsSql: string, productIdsSql: string, place: { countrySql: string; provinceSql: string }): string;
  /** What placing its order reads (the customer of the e-mail, how the variants are sold), as one column named `placing`. */
  placing(emailSql: string, variantIdsSql: string): string;
  /**
   * The store's price of the chosen rate (`StoreShippingPrices.priceReadSql`), as one column named
   * `shipping_price`, given SQL of the carrier, the service, the destination, the currency and the
   * parcel's weight; absent where the store prices no shipping.
   */
  shipping?(terms: { tenant: string; carrier: string; service: string; destination: string; currency: string; weight: string }): string;
}

/** The parcel's weight in grams, as `parcelWeightG` counts it, of the checkout's lines in SQL. */
const PARCEL_WEIGHT_OF_CHECKOUT = `(select coalesce(sum(case when (l ->> 'requires_shipping')::boolean then coalesce((l ->> 'weight_grams')::numeric, 0) * (l ->> 'quantity')::numeric else 0 end), 0)
     from jsonb_array_elements(c.line_items) as l)`;

/** The shipping step's locking read, built from `columns` (once per `Checkouts`). */
export function shippingReadSql(columns: ShippingReadColumns): string {
  const place = { countrySql: '(select country from place)', provinceSql: '(select province from place)' };
  const shipping = columns.shipping?.({
    tenant: 'c.tenant_id',
    carrier: '(select carrier from place)',
    service: '(select service from place)',
    destination: 'upper((select country from place))',
    currency: 'trim(c.currency)',
    weight: PARCEL_WEIGHT_OF_CHECKOUT,
  });
  return `
    with place as (select ?::text as country, ?::text as province, ?::text as carrier, ?::text as service)
    select c.*, k.custom_fields as cart_custom_fields,
           ${sellablesSql('c.tenant_id', VARIANTS_OF_CHECKOUT)} as sellables,
           ${columns.pricing(VARIANTS_OF_CHECKOUT, PRODUCTS_OF_CHECKOUT, place)},
           ${columns.placing('c.email', VARIANTS_OF_CHECKOUT)} as placing${shipping ? `,
           case when (select carrier from place) is null then null else ${shipping} end as shipping_price` : ''}
      from checkout_checkout c left join checkout_cart k on k.tenant_id = c.tenant_id and k.id = c.cart_id
     where c.tenant_id = ? and c.id = ?
       for update of c`;
}

/** What the shipping step reads first: the checkout (locked), its cart's custom fields, the catalog's facts of its lines, what its pricing and its order read. */
export interface CheckoutForShipping {
  checkout: Checkout;
  cartFields: CustomFieldValues;
  catalog: Map<string, Sellable>;
  /** The row's columns, for `CartPricing.placeReadsFrom`. */
  row: Record<string, unknown>;
  /** `Orders.placingReadsSql`'s column. */
  placing: unknown;
  /** The store's price of the chosen rate as read (`ShippingReadColumns.shipping`), for `storeRate`. */
  shippingPrice: unknown;
}

/**
 * Locks the checkout for the rest of `tx` and reads, in the same statement, everything its
 * pricing at `address`, the store's price of `rate` and the placing of its order read
 * (`shippingReadSql`): one round trip.
 * Null when the store has no such checkout.
 */
export async function lockForShipping(
  tx: TxReader,
  readSql: string,
  id: string,
  address: { country_code: string; province?: string | null },
  rate: { carrier: string; service: string } | null | undefined,
): Promise<CheckoutForShipping | null> {
  const params = [address.country_code, address.province ?? null, rate?.carrier ?? null, rate?.service ?? null, tx.tenantId, id];
  const [row] = await tx.query<Record<string, unknown>>(readSql, params, { prepare: true });
  if (!row) return null;
  return {
    checkout: checkoutFromRow(row),
    cartFields: (row.cart_custom_fields as CustomFieldValues | null) ?? {},
    catalog: sellablesFrom(row.sellables),
    row,
    placing: row.placing,
    shippingPrice: row.shipping_price,
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
