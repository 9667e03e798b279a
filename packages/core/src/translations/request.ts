import type { FastifyRequest } from 'fastify';
import { TenantContext } from '../context.js';
import { askedMarket, findMarket } from '../markets/market.js';
import { chooseLocale, type LocaleChoice } from './locales.js';

/**
 * The locale a REST read answers in: its `locale` query parameter, else the default locale of the
 * market it names (`?market=`, `X-Market`), else `Accept-Language`, else the store's default (see
 * `chooseLocale`). The store's locales and markets came with the caller's token.
 */
export function requestLocale(request: FastifyRequest): LocaleChoice {
  const principal = TenantContext.principal();
  const query = request.query as { locale?: string } | undefined;
  const market = askedMarket(request);
  const marketLocale = market && principal?.markets ? findMarket(principal.markets, market.value, market.path).defaultLocale : null;
  return chooseLocale(principal?.locales, { locale: query?.locale, acceptLanguage: request.headers['accept-language'], marketLocale });
}
