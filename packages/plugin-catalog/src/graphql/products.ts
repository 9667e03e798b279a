import { AppError, type GraphQLContribution, hasPermission, localeKey, type MarketChoice, moneyKey, type QhatuGraphQLContext, toConnection } from '@qhatu/core';
import { z } from 'zod';
import { PRODUCT_STATUSES } from '../entities/product.js';
import { Products, type ProductView } from '../services/products.js';
import { ProductCollections, type CollectionsOfProducts } from '../services/collection-products.js';
import { CATALOG_TOPIC, rememberedForStorefront } from '../services/catalog-cache.js';
import { rateKey, type PricedIn } from '../services/variant-prices.js';

const typeDefs = `
  enum ProductStatus { active draft archived }
  input ProductFilter { status: ProductStatus }
  "A variant's explicit price in one of the store's other currencies, in minor units of it."
  type VariantPrice { currency: String!, amount: Int!, compareAtAmount: Int }
  """
  price and compareAtPrice are minor units of currency: the store's default, or the currency the read asked for (market, currency).
  prices: its explicit prices in the store's other currencies, by currency, for callers with catalog.read (null for the others).
  """
  type ProductVariant { id: ID!, title: String!, sku: String, price: Int!, compareAtPrice: Int, currency: String!, inventoryQuantity: Int!, prices: [VariantPrice!] }
  type ProductImage { url: String, altText: String }
  type ProductCollection { id: ID!, title: String! }
  type Product {
    id: ID!
    title: String!
    handle: String!
    descriptionHtml: String
    status: ProductStatus!
    variants: [ProductVariant!]!
    images: [ProductImage!]!
    collections: [ProductCollection!]!
  }
  type ProductEdge { node: Product!, cursor: String! }
  type ProductConnection { edges: [ProductEdge!]!, pageInfo: PageInfo! }
  extend type Query {
    """
    locale: one of the store's (else LOCALE_NOT_LISTED); absent, the market's, else Accept-Language, else the store's default. Untranslated fields are the default's.
    market: a market's handle (else the X-Market header; unknown: MARKET_NOT_FOUND), whose currency prices are in. currency: one the store sells in (else CURRENCY_NOT_LISTED); absent, the market's, else the default.
    In another currency a variant's price is its explicit one there, else the one derived by the store's rate; a variant with neither is left out.
    """
    products(filter: ProductFilter, limit: Int, cursor: String, locale: String, market: String, currency: String): ProductConnection!
    "locale, market, currency: as for products."
    product(id: ID!, locale: String, market: String, currency: String): Product
  }
`;

const ProductsArgs = z.object({
  filter: z.object({ status: z.enum(PRODUCT_STATUSES).nullish() }).nullish(),
  limit: z.number().int().min(1, 'limit must be at least 1').nullish(),
  cursor: z.string().min(1).nullish(),
  locale: z.string().max(16).nullish(),
  market: z.string().max(64).nullish(),
  currency: z.string().max(3).nullish(),
});

/** The currency a choice prices in, when it is not the store's default. */
function pricedIn(ctx: QhatuGraphQLContext, choice: MarketChoice): PricedIn | undefined {
  return choice.converted && ctx.principal.money ? { money: ctx.principal.money, currency: choice.currency } : undefined;
}

/**
 * `locale`: the one the product was read in (not a field), for the collections loaded for it.
 * `prices` (admin reads) come with the view from the same read; without them the field is null.
 */
function node({ product, variants, prices }: ProductView, locale: string | undefined) {
  return {
    locale: locale ?? null,
    id: product.id,
    title: product.title,
    handle: product.handle,
    descriptionHtml: product.descriptionHtml,
    status: product.status,
    variants: variants.map((v) => ({
      id: v.id,
      title: v.title,
      sku: v.sku,
      price: v.price,
      compareAtPrice: v.compareAtPrice,
      currency: v.currency,
      inventoryQuantity: v.inventoryQuantity,
      prices: prices ? (prices.get(v.id) ?? []).map((p) => ({ currency: p.currency, amount: p.amount, compareAtAmount: p.compare_at_amount })) : null,
      customFields: v.customFields,
    })),
    images: product.images.map((i) => ({ url: i.url, altText: i.alt_text })),
    // Resolved by core's `customFields` fields (when fields are declared): the caller sees what it may.
    customFields: product.customFields,
  };
}

const activeOnly = (ctx: QhatuGraphQLContext) => !hasPermission(ctx.principal, 'catalog.read');

// Every tenant token reads products; storefront callers see active ones only.
const ANY_CALLER = ['admin', 'storefront', 'customer', 'vendor'] as const;
// Callers without catalog.read all get the same answer: a whole response is kept until the catalog changes.
const STOREFRONT_CACHE = { topic: CATALOG_TOPIC, unless: 'catalog.read' };

export const productGraphQL: GraphQLContribution = {
  typeDefs,
  access: {
    Query: {
      products: { auth: ANY_CALLER, cache: STOREFRONT_CACHE },
      product: { auth: ANY_CALLER, cache: STOREFRONT_CACHE },
    },
  },
  resolvers: {
    Query: {
      products: async (_: unknown, raw: unknown, ctx: QhatuGraphQLContext) => {
        const parsed = ProductsArgs.safeParse(raw);
        if (!parsed.success) throw AppError.validation(parsed.error.issues.map((i) => i.message).join('; '));
        const args = parsed.data;
        const market = ctx.market({ market: args.market, currency: args.currency });
        // A market named by argument gives the locale as X-Market does: when none is asked, before Accept-Language.
        const choice = ctx.locale(args.locale ?? market.market?.defaultLocale);
        const locale = choice.translated ? choice.locale : undefined;
        const priced = pricedIn(ctx, market);
        const read = async (storefront: boolean) => {
          const { items, page } = await ctx.container.resolve(Products).list(
            { limit: Math.min(args.limit ?? 25, 100), cursor: args.cursor ?? undefined, sort: '-created_at' },
            // Admin callers' explicit prices ride in the variants' statement, as the REST admin reads' do.
            { status: args.filter?.status ?? undefined, activeOnly: storefront, locale, priced, withPrices: !storefront },
          );
          const views = new Map(items.map((v) => [v.product.id, v]));
          return toConnection(page, (p) => node(views.get(p.id)!, locale), args.cursor ?? undefined);
        };
        if (!activeOnly(ctx)) return read(false);
        return rememberedForStorefront(ctx, `${localeKey(choice)}${moneyKey(market)}${rateKey(priced)}products:${JSON.stringify([args.filter?.status ?? null, args.limit ?? null, args.cursor ?? null])}`, () => read(true));
      },
      product: async (_: unknown, args: { id: string; locale?: string | null; market?: string | null; currency?: string | null }, ctx: QhatuGraphQLContext) => {
        if (!z.uuid().safeParse(args.id).success) throw AppError.validation('id must be a UUID');
        const market = ctx.market({ market: args.market, currency: args.currency });
        // A market named by argument gives the locale as X-Market does: when none is asked, before Accept-Language.
        const choice = ctx.locale(args.locale ?? market.market?.defaultLocale);
        const locale = choice.translated ? choice.locale : undefined;
        const priced = pricedIn(ctx, market);
        const read = async (storefront: boolean) => node(await ctx.container.resolve(Products).get(args.id, { activeOnly: storefront, locale, priced, withPrices: !storefront }), locale);
        if (!activeOnly(ctx)) return read(false);
        return rememberedForStorefront(ctx, `${localeKey(choice)}${moneyKey(market)}${rateKey(priced)}product:${args.id.toLowerCase()}`, () => read(true));
      },
    },
  },
  loaders: {
    Product: {
      // Batched across every product of the response (one statement per locale read in); storefronts see active collections only.
      collections: async (queries: Array<{ obj: { id: string; locale: string | null } }>, ctx: QhatuGraphQLContext) => {
        const source = ctx.container.resolve<CollectionsOfProducts>(ProductCollections);
        const locales = [...new Set(queries.map((q) => q.obj.locale))];
        const found = await Promise.all(locales.map((locale) =>
          source.collectionsOf(queries.filter((q) => q.obj.locale === locale).map((q) => q.obj.id), { activeOnly: activeOnly(ctx), locale: locale ?? undefined })));
        const byLocale = new Map(locales.map((locale, i) => [locale, found[i]]));
        return queries.map((q) => byLocale.get(q.obj.locale)!.get(q.obj.id) ?? []);
      },
    },
  },
};
