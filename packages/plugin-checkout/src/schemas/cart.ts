import { CurrencyCode, customFieldsIn, customFieldsOut, MarketQuery, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';

/** A currency of ISO 4217 (core's `CurrencyCode` refuses `ZZQ` and the like everywhere). */
export const IsoCurrency = CurrencyCode;

export const CartParams = z.object({ id: Uuid });
export const CartItemParams = z.object({ id: Uuid, variant_id: Uuid });

const Quantity = z.number().int('must be a whole number').min(1, 'must be at least 1').max(10_000, 'must be at most 10000');
const MAX_PRICE = 2_147_483_647;

export const CartCreate = z
  .strictObject({
    customer_id: Uuid.nullable().optional().meta({ description: 'Store keys only; a customer token makes carts for its own customer' }),
    session_id: z.string().trim().min(1).max(255).nullable().optional(),
    market: z.string().trim().min(1).max(64).optional().meta({
      description: "The market the cart is made in, by handle (else `?market=` or the X-Market header): its currency, its tax mode and the countries it ships to. Unknown: 422 MARKET_NOT_FOUND",
    }),
    currency: IsoCurrency.optional().meta({
      description: "One of the store's currencies (another: 422 CURRENCY_NOT_LISTED); with a market, the market's. Absent: the market's, else the store's default",
    }),
    custom_fields: customFieldsIn('cart').optional().meta({ description: 'Storefront keys and customers set the public ones only' }),
  })
  .meta({ id: 'CheckoutCartCreate' });

/** Where a storefront names the market of a new cart besides its body (the body's `market` wins). */
export const CartCreateQuery = z.object({ market: MarketQuery.shape.market });

/** What changes of a cart besides its lines and coupon: its custom fields. */
export const CartPatch = z
  .strictObject({ custom_fields: customFieldsIn('cart').meta({ description: 'Only those sent change (null clears one); storefront keys and customers set the public ones only' }) })
  .meta({ id: 'CheckoutCartPatch' });

/**
 * The specification's cart item input. Only `variant_id` and `quantity` decide anything: the
 * title, price and other fields are the catalog's; when sent they are accepted and replaced.
 */
export const CartItemCreate = z
  .strictObject({
    variant_id: Uuid,
    quantity: Quantity,
    product_id: Uuid.optional().meta({ description: "Checked: must be the variant's product" }),
    offer_id: Uuid.optional().meta({ description: "A seller's offer of the variant's product (marketplace): the line is priced at the offer's price and limited by its stock" }),
    title: z.string().max(500).optional().meta({ description: "Ignored: the catalog's title is used" }),
    variant_title: z.string().max(500).nullable().optional().meta({ description: 'Ignored' }),
    sku: z.string().max(255).nullable().optional().meta({ description: 'Ignored' }),
    unit_price: z.number().int().min(0).max(MAX_PRICE).optional().meta({ description: 'Ignored: the catalog price is charged' }),
    requires_shipping: z.boolean().optional().meta({ description: 'Ignored' }),
    image_url: z.string().max(2048).nullable().optional().meta({ description: 'Ignored' }),
    weight_grams: z.number().int().min(0).nullable().optional().meta({ description: 'Ignored' }),
    taxable: z.boolean().optional().meta({ description: 'Ignored' }),
  })
  .meta({ id: 'CheckoutCartItemCreate' });

export const CartItemUpdate = z.strictObject({ quantity: Quantity }).meta({ id: 'CheckoutCartItemUpdate' });

export const CouponCode = z
  .strictObject({ code: z.string().trim().min(1).max(64) })
  .meta({ id: 'CheckoutCartCoupon' });

export const CartLineOut = z
  .object({
    id: z.uuid(),
    variant_id: z.uuid(),
    product_id: z.uuid(),
    title: z.string(),
    variant_title: z.string().nullable(),
    sku: z.string().nullable(),
    quantity: z.number().int(),
    unit_price: z.number().int().meta({ description: "What one unit costs this buyer (the catalog price, or a B2B price list's), minor units" }),
    subtotal: z.number().int().meta({ description: 'quantity × unit_price' }),
    volume_discount: z.number().int(),
    total: z.number().int().meta({ description: 'subtotal − volume_discount' }),
    requires_shipping: z.boolean(),
    image_url: z.string().nullable(),
    weight_grams: z.number().int().nullable(),
    taxable: z.boolean(),
    offer_id: z.uuid().nullable().meta({ description: "The seller's offer the line is bought on (marketplace); null for the store's own stock" }),
  })
  .meta({ id: 'CheckoutLine' });

export const CheckoutLineOut = CartLineOut.extend({
  discount_amount: z.number().int().meta({ description: "volume_discount plus the line's share of the coupon, taken before tax" }),
  tax_class: z.string().meta({ description: '`standard`, `exempt` (or taxable false), or a class the store named' }),
  tax_rate: z.number().int().meta({ description: 'Basis points (1800 = 18 %)' }),
  tax_amount: z.number().int().meta({ description: "Tax of the line after its discounts, rounded half up to the minor unit; the lines' and shipping_tax add up to tax_total" }),
  backordered_quantity: z.number().int().meta({ description: 'Once the order is placed: units not in stock, sold as a backorder (the variant allows it) and shipped once stock arrives' }),
}).meta({ id: 'CheckoutTaxedLine' });

export const CartOut = z
  .object({
    id: z.uuid(),
    tenant_id: z.uuid(),
    customer_id: z.uuid().nullable(),
    session_id: z.string().nullable(),
    currency: z.string().meta({ description: "What the cart is priced in: its market's currency, else the one it was made in, else the store's default" }),
    market_id: z.uuid().nullable().meta({ description: 'The market the cart was made in (its currency, tax mode and the countries it ships to); null: none' }),
    line_items: z.array(CartLineOut),
    item_count: z.number().int(),
    subtotal: z.number().int().meta({ description: 'Lines at catalog price, before discounts' }),
    discount_total: z.number().int().meta({ description: 'Volume discounts plus the coupon' }),
    tax_total: z.number().int().meta({ description: "An estimate: the tax where the store sells from (its origin_country) until a checkout has the shipping address; 0 without the taxes plugin" }),
    prices_include_tax: z.boolean().meta({ description: "Whether the prices include the tax (the market's prices_include_tax, else the store's tax setting): then total does not add tax_total" }),
    total: z.number().int().meta({ description: 'subtotal − discount_total, plus tax_total when prices_include_tax is false' }),
    coupon: z
      .object({ code: z.string(), applies: z.boolean(), reason: z.string().nullable(), discount_amount: z.number().int() })
      .nullable(),
    checkout_id: z.uuid().nullable().meta({ description: 'Set once checked out: the cart is frozen' }),
    custom_fields: customFieldsOut('cart'),
    expires_at: Timestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'CheckoutCart' });
