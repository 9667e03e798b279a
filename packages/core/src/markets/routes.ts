import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { z } from 'zod';
import { TenantContext } from '../context.js';
import { ADMIN, STOREFRONT } from '../http/route-config.js';
import { CurrencyCode, dataOf, errorResponses, IdParams, NoContent } from '../http/schemas.js';
import { LocaleTag } from '../translations/locales.js';
import { MARKET_HANDLE, type StoredMarket } from './market.js';
import type { StoreMoney } from './money.js';
import { Currencies, MAX_CURRENCIES } from './store-currencies.js';
import { Markets } from './store-markets.js';

const RATE = /^\d{1,10}(\.\d{1,10})?$/;

const CurrencyOut = z
  .object({
    code: z.string(),
    rate: z.string().nullable().meta({ description: 'Units of this currency one unit of the default buys ("1" for the default); null: only prices set in it explicitly' }),
    rounding_increment: z.number().int().meta({ description: 'Derived prices are rounded to a multiple of this many minor units' }),
    rounding: z.enum(['nearest', 'up', 'down']),
    decimals: z.number().int().meta({ description: 'Minor-unit digits (ISO 4217): amounts are integers of 10^-decimals' }),
  })
  .meta({ id: 'StoreCurrency' });

const CurrenciesOut = z
  .object({
    default_currency: z.string().meta({ description: "The variants' own prices and the reports' default are in it" }),
    currencies: z.array(CurrencyOut).meta({ description: 'Every currency the store sells in, the default first' }),
  })
  .meta({ id: 'StoreCurrencies' });

const CurrencyIn = z.strictObject({
  code: CurrencyCode,
  rate: z
    .string()
    .regex(RATE, 'must be a positive decimal such as "0.27", at most 10 places')
    .refine((r) => Number(r) > 0, 'must be above 0')
    .nullable()
    .optional()
    .meta({ description: 'Units of this currency one unit of the default buys; null or absent: prices in it are only those set explicitly' }),
  rounding_increment: z.number().int().min(1).max(1_000_000).optional().meta({ description: 'Minor units derived prices are rounded to (default 1)' }),
  rounding: z.enum(['nearest', 'up', 'down']).optional().meta({ description: 'nearest (halves up; the default), up or down' }),
});

const CurrenciesReplace = z
  .strictObject({
    currencies: z.array(CurrencyIn).max(MAX_CURRENCIES).meta({ description: 'The currencies the store sells in besides its default (listing the default is allowed, with rate 1)' }),
  })
  .meta({ id: 'StoreCurrenciesReplace' });

const currenciesOut = (m: StoreMoney) => ({
  default_currency: m.defaultCurrency,
  currencies: m.currencies.map((c) => ({ code: c.code, rate: c.rate, rounding_increment: c.roundingIncrement, rounding: c.rounding, decimals: c.decimals })),
});

const Country = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166 alpha-2 country code')
  .transform((c) => c.toUpperCase());

const MarketFields = {
  handle: z.string().min(1).max(64).transform((h) => h.toLowerCase()).pipe(z.string().regex(MARKET_HANDLE, 'must be lower-case letters, digits and single dashes, e.g. pe or north-america')),
  name: z.string().trim().min(1).max(120),
  countries: z.array(Country).max(250).meta({ description: 'The countries it serves (ISO 3166 alpha-2); empty: any. A country is in one market of the store' }),
  currency: CurrencyCode.meta({ description: 'One of the store’s currencies' }),
  default_locale: LocaleTag.meta({ description: 'One of the store’s locales: reads in the market take it when they ask for none' }),
  prices_include_tax: z.boolean().nullable().meta({ description: "Whether the market's prices include tax; null: the store's tax setting" }),
};

const MarketCreate = z
  .strictObject({ ...MarketFields, countries: MarketFields.countries.optional(), prices_include_tax: MarketFields.prices_include_tax.optional() })
  .meta({ id: 'MarketCreate' });
const MarketUpdate = z
  .strictObject({
    handle: MarketFields.handle.optional(),
    name: MarketFields.name.optional(),
    countries: MarketFields.countries.optional(),
    currency: MarketFields.currency.optional(),
    default_locale: MarketFields.default_locale.optional(),
    prices_include_tax: MarketFields.prices_include_tax.optional(),
  })
  .meta({ id: 'MarketUpdate' });

const MarketOut = z
  .object({
    id: z.uuid(),
    handle: z.string(),
    name: z.string(),
    countries: z.array(z.string()),
    currency: z.string(),
    default_locale: z.string(),
    prices_include_tax: z.boolean().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Market' });

const marketOut = (m: StoredMarket) => ({
  id: m.id,
  handle: m.handle,
  name: m.name,
  countries: [...m.countries],
  currency: m.currency,
  default_locale: m.defaultLocale,
  prices_include_tax: m.pricesIncludeTax,
  created_at: m.createdAt.toISOString(),
  updated_at: m.updatedAt.toISOString(),
});

/** The store's currencies and markets: read by storefronts (a currency or market switcher), set by staff. */
export async function marketRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const currencies = container.resolve(Currencies);
  const markets = container.resolve(Markets);

  r.get('/currencies', {
    config: { auth: STOREFRONT },
    schema: { tags: ['Currencies'], summary: "The store's currencies: its default and the others it sells in, with their rates and rounding", response: { 200: dataOf(CurrenciesOut), ...errorResponses(400, 401, 403) } },
  }, async () => ({ data: currenciesOut(await currencies.get()) }));

  r.put('/currencies', {
    config: { auth: ADMIN, permission: 'currencies.manage' },
    schema: {
      tags: ['Currencies'],
      summary: 'Set the currencies the store sells in besides its default, their rates and rounding',
      description: "A price in another currency is the variant's explicit one, else the default's converted at the rate and rounded to the currency's increment. A market's currency cannot be taken off (409 CURRENCY_IN_USE).",
      body: CurrenciesReplace,
      response: { 200: dataOf(CurrenciesOut), ...errorResponses(400, 401, 403, 409, 422) },
    },
  }, async (req) => ({ data: currenciesOut(await currencies.replace(TenantContext.tenantId(), req.body.currencies)) }));

  const tags = ['Markets'];
  r.get('/markets', {
    config: { auth: STOREFRONT },
    schema: { tags, summary: "The store's markets, by handle (at most 50, not paginated)", response: { 200: dataOf(z.array(MarketOut)), ...errorResponses(400, 401, 403) } },
  }, async () => ({ data: (await markets.list()).map(marketOut) }));

  r.post('/markets', {
    config: { auth: ADMIN, permission: 'markets.manage' },
    schema: { tags, summary: 'Create a market: countries, a currency, a default locale and a tax mode', body: MarketCreate, response: { 201: dataOf(MarketOut), ...errorResponses(400, 401, 403, 409, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: marketOut(await markets.create(TenantContext.tenantId(), req.body)) }));

  r.get('/markets/:id', {
    config: { auth: STOREFRONT },
    schema: { tags, summary: 'One market', params: IdParams, response: { 200: dataOf(MarketOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: marketOut(await markets.get(req.params.id)) }));

  r.patch('/markets/:id', {
    config: { auth: ADMIN, permission: 'markets.manage' },
    schema: { tags, summary: 'Change a market', body: MarketUpdate, params: IdParams, response: { 200: dataOf(MarketOut), ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req) => ({ data: marketOut(await markets.update(TenantContext.tenantId(), req.params.id, req.body)) }));

  r.delete('/markets/:id', {
    config: { auth: ADMIN, permission: 'markets.manage' },
    schema: { tags, summary: 'Remove a market; carts and orders that named it keep their currency and tax mode', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await markets.remove(TenantContext.tenantId(), req.params.id);
    return reply.code(204).send(null);
  });
}
