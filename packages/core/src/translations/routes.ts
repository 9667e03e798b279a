import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { z } from 'zod';
import { TenantContext } from '../context.js';
import { ADMIN, STOREFRONT } from '../http/route-config.js';
import { dataOf, errorResponses } from '../http/schemas.js';
import { LocaleTag, type StoreLocales } from './locales.js';
import { Locales, MAX_LOCALES } from './store-locales.js';

const LocalesOut = z
  .object({
    default_locale: z.string().meta({ description: "The store's own texts are in it; reads fall back to it field by field" }),
    locales: z.array(z.string()).meta({ description: 'Every locale the store sells in, the default first' }),
  })
  .meta({ id: 'StoreLocales' });

const LocalesReplace = z
  .strictObject({
    default_locale: LocaleTag,
    locales: z.array(LocaleTag).max(MAX_LOCALES).meta({ description: 'The locales the store sells in; the default is listed whether sent or not' }),
  })
  .meta({ id: 'StoreLocalesReplace' });

const localesOut = (s: StoreLocales) => ({ default_locale: s.defaultLocale, locales: [...s.locales] });

/** The store's locales: read by storefronts (a language switcher), set by staff. */
export async function localeRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const locales = container.resolve(Locales);
  const tags = ['Locales'];

  r.get('/locales', {
    config: { auth: STOREFRONT },
    schema: { tags, summary: "The store's locales: its default and the others it sells in", response: { 200: dataOf(LocalesOut), ...errorResponses(400, 401, 403) } },
  }, async () => ({ data: localesOut(await locales.get()) }));

  r.put('/locales', {
    config: { auth: ADMIN, permission: 'locales.manage' },
    schema: {
      tags,
      summary: "Set the store's default locale and the others it sells in",
      description: "The resources' own texts are the default locale's; translations into the others are kept per resource. Changing the default moves no text. A market's default locale stays listed (409 LOCALE_IN_USE).",
      body: LocalesReplace,
      response: { 200: dataOf(LocalesOut), ...errorResponses(400, 401, 403, 409, 422) },
    },
  }, async (req) => ({ data: localesOut(await locales.replace(TenantContext.tenantId(), req.body)) }));
}
