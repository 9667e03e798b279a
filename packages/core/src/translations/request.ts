import type { FastifyRequest } from 'fastify';
import { TenantContext } from '../context.js';
import { chooseLocale, type LocaleChoice } from './locales.js';

/**
 * The locale a REST read answers in: its `locale` query parameter, else `Accept-Language`, else
 * the store's default (see `chooseLocale`). The store's locales came with the caller's token.
 */
export function requestLocale(request: FastifyRequest): LocaleChoice {
  const query = request.query as { locale?: string } | undefined;
  return chooseLocale(TenantContext.principal()?.locales, { locale: query?.locale, acceptLanguage: request.headers['accept-language'] });
}
