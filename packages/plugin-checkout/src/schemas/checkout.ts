import { Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { CHECKOUT_STATUSES } from '../entities/checkout.js';
import { CheckoutLineOut, IsoCurrency } from './cart.js';

export const CheckoutParams = z.object({ id: Uuid });

export const CheckoutCreate = z
  .strictObject({
    cart_id: Uuid,
    email: z.email({ message: 'must be an e-mail address' }).max(320),
    customer_id: Uuid.nullable().optional(),
    currency: IsoCurrency.optional().meta({ description: "Must be the cart's when sent" }),
  })
  .meta({ id: 'CheckoutCreate' });

const Text = z.string().trim().min(1).max(255);
const addressShape = {
  first_name: Text,
  last_name: Text,
  address1: Text,
  city: Text,
  province: Text,
  country_code: z.string().regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 code'),
  zip: z.string().trim().min(1).max(32),
};

export const ShippingAddress = z
  .strictObject({ ...addressShape, phone: z.string().trim().min(1).max(32) })
  .meta({ id: 'CheckoutShippingAddress' });
export const BillingAddress = z
  .strictObject({ ...addressShape, phone: z.string().trim().min(1).max(32).nullable().optional() })
  .meta({ id: 'CheckoutBillingAddress' });

export const ShippingRateIn = z
  .strictObject({
    carrier: Text,
    service: Text.meta({ description: "The rate's service_code" }),
    price: z.number().int().min(0).max(100_000_000).meta({ description: "Charged only where the store prices no shipping; otherwise the store's price is" }),
  })
  .meta({ id: 'CheckoutShippingRate' });

export const CheckoutShipping = z
  .strictObject({
    shipping_address: ShippingAddress,
    billing_address: BillingAddress.nullable().optional().meta({ description: 'Defaults to the shipping address' }),
    shipping_rate: ShippingRateIn.nullable().optional().meta({ description: 'With a rate the checkout awaits payment (payment_pending)' }),
  })
  .meta({ id: 'CheckoutShippingStep' });

const AddressOut = z.object({ ...addressShape, phone: z.string().nullable() });

export const CheckoutOut = z
  .object({
    id: z.uuid(),
    cart_id: z.uuid(),
    customer_id: z.uuid().nullable(),
    email: z.string(),
    status: z.enum(CHECKOUT_STATUSES),
    currency: z.string().meta({ description: "The cart's currency; the order is placed in it" }),
    market_id: z.uuid().nullable().meta({ description: "The cart's market: its tax mode, and the only countries the order ships to when it lists some; null: none" }),
    line_items: z.array(CheckoutLineOut),
    coupon_code: z.string().nullable(),
    subtotal: z.number().int(),
    shipping_total: z.number().int(),
    discount_total: z.number().int(),
    tax_total: z.number().int().meta({ description: "The lines' tax plus shipping_tax: where the order ships (the store's origin_country before an address is given)" }),
    shipping_tax: z.number().int(),
    prices_include_tax: z.boolean().meta({ description: "Whether the prices include the tax (the market's prices_include_tax, else the store's tax setting): then total does not add tax_total" }),
    total: z.number().int().meta({ description: 'subtotal − discount_total + shipping_total, plus tax_total when prices_include_tax is false: what the order will be due' }),
    shipping_address: AddressOut.nullable(),
    billing_address: AddressOut.nullable(),
    shipping_rate: z.object({ carrier: z.string(), service: z.string(), price: z.number().int() }).nullable(),
    order_id: z.uuid().nullable().meta({ description: 'The order placed when the checkout entered payment_pending; the payment names it' }),
    abandoned_at: Timestamp.nullable(),
    completed_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Checkout' });

export const CheckoutComplete = z.strictObject({ order_id: Uuid }).meta({ id: 'CheckoutComplete' });
