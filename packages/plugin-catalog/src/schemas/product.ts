import { CurrencyCode, LocaleQuery, MarketQuery, customFieldsIn, customFieldsOut, listQuery, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { PRODUCT_STATUSES } from '../entities/product.js';

const MAX_PRICE = 2_147_483_647;
const Price = z.number().int('must be a whole number of minor units').min(0).max(MAX_PRICE);
/** A product's handle: lower-case words joined by single dashes (a translated handle too). */
export const Handle = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lower-case letters and digits separated by single dashes');

const PricesDescription =
  "Its prices in the store's other currencies, each set explicitly (replacing all it had when sent; [] removes them). A currency the store does not sell in, or its default (whose price is `price`), is 422 CURRENCY_NOT_LISTED. " +
  "Without one, a currency's price is derived from `price` by the store's rate and rounding; a currency without a rate sells only what has an explicit price.";

export const VariantPriceInput = z
  .strictObject({
    currency: CurrencyCode.meta({ description: "One of the store's currencies other than its default" }),
    amount: Price.meta({ description: 'Minor units of the currency' }),
    compare_at_amount: Price.nullable().optional().meta({ description: 'The price before a sale, in minor units of the currency' }),
  })
  .meta({ id: 'VariantPriceInput' });

export const VariantPriceOut = z
  .object({
    currency: z.string(),
    amount: z.number().int(),
    compare_at_amount: z.number().int().nullable(),
  })
  .meta({ id: 'VariantPrice' });

export const VariantInput = z
  .strictObject({
    title: z.string().trim().min(1).max(255),
    sku: z.string().trim().min(1).max(100).nullable().optional(),
    price: Price,
    compare_at_price: Price.nullable().optional(),
    currency: CurrencyCode.optional().meta({ description: "The store's currency (the default); another is 422 VARIANT_CURRENCY_MISMATCH" }),
    weight_grams: z.number().int().min(0).max(10_000_000).nullable().optional(),
    requires_shipping: z.boolean().optional(),
    taxable: z.boolean().optional(),
    inventory_quantity: z.number().int().min(0).max(1_000_000_000).optional(),
    custom_fields: customFieldsIn('variant').optional(),
    prices: z.array(VariantPriceInput).max(20).optional().meta({ description: PricesDescription }),
  })
  .meta({ id: 'VariantCreate' });
export type VariantInput = z.output<typeof VariantInput>;

export const VariantPatch = VariantInput.partial().meta({ id: 'VariantPatch' });
export type VariantPatch = z.output<typeof VariantPatch>;

const ImageInput = z
  .strictObject({
    media_id: Uuid.optional(),
    url: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2048).optional(),
    alt_text: z.string().max(512).nullable().optional(),
  })
  .refine((i) => Boolean(i.media_id) !== Boolean(i.url), { message: 'give either media_id or url' });

const Tags = z.array(z.string().trim().min(1).max(64)).max(100);

export const ProductInput = z
  .strictObject({
    title: z.string().trim().min(1).max(255),
    handle: Handle.optional(),
    description_html: z.string().max(100_000).nullable().optional(),
    status: z.enum(PRODUCT_STATUSES).optional().meta({ description: 'Defaults to active' }),
    brand_id: Uuid.nullable().optional(),
    supplier_id: Uuid.nullable().optional(),
    tags: Tags.optional(),
    images: z.array(ImageInput).max(50).optional(),
    variants: z.array(VariantInput).min(1, 'a product needs at least one variant').max(100),
    custom_fields: customFieldsIn('product').optional(),
  })
  .meta({ id: 'ProductCreate' });
export type ProductInput = z.output<typeof ProductInput>;

export const ProductPatch = ProductInput.omit({ variants: true }).partial().meta({ id: 'ProductPatch' });
export type ProductPatch = z.output<typeof ProductPatch>;

export const VariantOut = z
  .object({
    id: z.uuid(),
    product_id: z.uuid(),
    title: z.string(),
    sku: z.string().nullable(),
    price: z.number().int().meta({ description: 'Minor units of `currency`: the store default’s price, or in the currency a storefront read asked for, its explicit price there, else the derived one' }),
    compare_at_price: z.number().int().nullable(),
    currency: z.string().meta({ description: 'The currency of `price`: the store’s default, or the one a read asked for (`currency`, `market`, X-Market)' }),
    weight_grams: z.number().int().nullable(),
    requires_shipping: z.boolean(),
    taxable: z.boolean(),
    inventory_quantity: z.number().int(),
    position: z.number().int(),
    custom_fields: customFieldsOut('variant'),
    created_at: Timestamp,
    updated_at: Timestamp,
    prices: z.array(VariantPriceOut).optional().meta({ description: "Admin callers: its explicit prices in the store's other currencies, by currency" }),
  })
  .meta({ id: 'Variant' });

export const ProductOut = z
  .object({
    id: z.uuid(),
    title: z.string(),
    handle: z.string(),
    description_html: z.string().nullable(),
    status: z.enum(PRODUCT_STATUSES),
    brand_id: z.uuid().nullable(),
    supplier_id: z.uuid().nullable(),
    tags: z.array(z.string()),
    images: z.array(
      z.object({
        id: z.uuid(),
        media_id: z.uuid().nullable(),
        url: z.string().nullable(),
        alt_text: z.string().nullable(),
        position: z.number().int(),
      }),
    ),
    variants: z.array(VariantOut),
    custom_fields: customFieldsOut('product'),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Product' });

const ProductListBase = listQuery({
  filters: {
    status: z.enum(PRODUCT_STATUSES),
    handle: Handle,
    brand_id: Uuid,
    supplier_id: Uuid,
    tag: z.string().min(1).max(64),
  },
  sorts: ['created_at', 'updated_at', 'title'],
  defaultSort: '-created_at',
  search: true,
  locale: true,
});
/** The list's query: its page, sort, search, locale and filters, and the market or currency its prices are in. */
export const ProductListQuery = (ProductListBase as unknown as z.ZodObject).extend(MarketQuery.shape) as unknown as z.ZodType<z.output<typeof ProductListBase> & z.output<typeof MarketQuery>>;
export type ProductListQuery = z.output<typeof ProductListQuery>;

/** A product read's query: the locale of its texts, and the market or currency of its prices. */
export const ProductReadQuery = LocaleQuery.extend(MarketQuery.shape);

export const VariantParams = z.object({ id: Uuid, variant_id: Uuid });

export const HandleParams = z.object({ handle: Handle });
