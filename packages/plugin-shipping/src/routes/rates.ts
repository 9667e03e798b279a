import { ADMIN, askedMarket, chooseMarket, dataOf, errorResponses, filtersOf, IdParams, listOf, NoContent, requestLocale, STOREFRONT, TenantContext, type Translation } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { z } from 'zod';
import { RateCalculation, RateCalculationQuery, RateCreate, RateListQuery, RateOut, RateTranslationOut, RateTranslationParams, RateTranslationReplace } from '../schemas/rate.js';
import { RateTranslations } from '../services/translations.js';
import { Quotes } from '../services/quotes.js';
import { Rates, type RateFilter } from '../services/rates.js';
import { rateOut } from './serialize.js';

export async function rateRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const rates = container.resolve(Rates);
  const quotes = container.resolve(Quotes);
  const translations = container.resolve(RateTranslations);
  const translationOut = (t: Translation) => ({ locale: t.locale, service_name: t.fields.service_name, created_at: t.createdAt.toISOString(), updated_at: t.updatedAt.toISOString() });
  const tags = ['Shipping'];
  const base = '/shipping/rates';

  r.post(`${base}/calculate`, {
    config: { auth: STOREFRONT },
    schema: {
      tags,
      summary: "Rates for a parcel: the route's rates that cover its billable weight (the larger of actual and volumetric), cheapest first",
      description: "The rate table's service names are in the locale asked (`locale`, else Accept-Language, else the store's default); a carrier's live quotes keep the carrier's. In a currency of the store other than its default (`currency`, else the market's), a service with no rate in it is offered at its default-currency rate converted by the store's rate and rounding; live quotes stay in the carrier's currency.",
      querystring: RateCalculationQuery,
      body: RateCalculation,
      response: { 200: z.array(RateOut), ...errorResponses(400, 401, 403, 422) },
    },
  }, async (req) => {
    const locale = requestLocale(req);
    const market = askedMarket(req);
    // A market named (`?market=`, X-Market) prices in its currency; a currency sent beside it must be that one.
    const currency = market
      ? chooseMarket(TenantContext.principal(), { market: market.value, currency: req.body.currency ?? null }, { market: market.path, currency: 'body.currency' }).currency
      : req.body.currency;
    const rates = (await quotes.calculate({ ...req.body, currency })).map(rateOut);
    if (!locale.translated) return rates;
    const names = await translations.serviceNames(rates.filter((r) => r.source === 'table').map((r) => r.id), locale.locale);
    return rates.map((r) => (r.source === 'table' && names.has(r.id) ? { ...r, service_name: names.get(r.id)! } : r));
  });

  r.post(base, {
    config: { auth: ADMIN, permission: 'shipping.write' },
    schema: {
      tags,
      summary: 'Add a rate to the rate table',
      description: "The rate's currency is one the store sells in (else 422 CURRENCY_NOT_LISTED); a currency without a rate of a service takes its rate in the store's default currency, converted.",
      body: RateCreate,
      response: { 201: dataOf(RateOut), ...errorResponses(400, 401, 403, 409, 422) },
    },
  }, async (req, reply) => reply.code(201).send({ data: rateOut(await rates.create(req.body)) }));

  r.get(base, {
    config: { auth: ADMIN, permission: 'shipping.read' },
    schema: { tags, summary: 'List the rate table, newest first', querystring: RateListQuery, response: { 200: listOf(RateOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await rates.list(req.query, filtersOf(req.query) as RateFilter);
    return { data: page.items.map(rateOut), meta: { pagination: page.pagination } };
  });

  r.get(`${base}/:id`, {
    config: { auth: ADMIN, permission: 'shipping.read' },
    schema: { tags, summary: 'Read a rate', params: IdParams, response: { 200: dataOf(RateOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: rateOut(await rates.get(req.params.id)) }));

  r.get(`${base}/:id/translations`, {
    config: { auth: ADMIN, permission: 'shipping.read' },
    schema: { tags, summary: "List the rate's translations, one per locale", params: IdParams, response: { 200: dataOf(z.array(RateTranslationOut)), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: (await translations.list(req.params.id)).map(translationOut) }));

  r.put(`${base}/:id/translations/:locale`, {
    config: { auth: ADMIN, permission: 'shipping.write' },
    schema: {
      tags,
      summary: "Name the rate's service in a locale of the store",
      description: 'A locale the store does not list is a 422 LOCALE_NOT_LISTED; its default locale, a 422 LOCALE_IS_DEFAULT (the rate\u2019s own service_name).',
      params: RateTranslationParams,
      body: RateTranslationReplace,
      response: { 200: dataOf(RateTranslationOut), ...errorResponses(400, 401, 403, 404, 422) },
    },
  }, async (req) => ({ data: translationOut(await translations.put(req.params.id, req.params.locale, req.body)) }));

  r.delete(`${base}/:id/translations/:locale`, {
    config: { auth: ADMIN, permission: 'shipping.write' },
    schema: { tags, summary: "Remove the rate's service name in a locale (its own is shown there again)", params: RateTranslationParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await translations.remove(req.params.id, req.params.locale);
    return reply.code(204).send(null);
  });

  r.delete(`${base}/:id`, {
    config: { auth: ADMIN, permission: 'shipping.write' },
    schema: { tags, summary: 'Remove a rate from the rate table', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await rates.remove(req.params.id);
    return reply.code(204).send(null);
  });
}
