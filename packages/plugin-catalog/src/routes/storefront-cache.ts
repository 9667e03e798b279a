import { entityTag, hasPermission, matchesEtag, localeKey, moneyKey, NoContent, ReadCache, requestLocale, requestMarket, TenantContext, type CachedAnswer } from '@qhatu/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CATALOG_TOPIC } from '../services/catalog-cache.js';
import { rateKey, type PricedIn } from '../services/variant-prices.js';

// A CDN may keep a storefront answer one second, then asks again with If-None-Match (a 304 from memory).
const PUBLIC = 'public, max-age=0, s-maxage=1, must-revalidate';
const PRIVATE = 'private, no-cache';
// Answers differ by store and by caller (admin keys see drafts), and in a store of several locales by Accept-Language.
const VARY = 'Authorization, X-Tenant-ID';
const VARY_LANGUAGE = `${VARY}, Accept-Language`;
// A store with markets answers by X-Market too (its currency, and its locale when none is asked).

export const STOREFRONT_CACHED =
  'Storefront keys and customers see active items only, answered from memory until the catalog changes; admin callers read the database. ' +
  'Every answer has an ETag; a request with If-None-Match holding it gets a 304. ' +
  'Texts are in the locale asked with `locale`, else the market\u2019s, else Accept-Language (else the store\u2019s default), field by field; Content-Language names it.';
export const NotModified = NoContent.meta({ description: 'Not modified: the answer still has the ETag sent in If-None-Match' });

/** Storefront keys and customers see active products and collections only; they share one cache. */
export const storefrontCaller = () => !hasPermission(TenantContext.principal(), 'catalog.read');

/** Admin answers' keys begin so: never a storefront key (those begin with the URL, or a locale or market key before it). */
const ADMIN_KEY = 'admin@';


/** What a build answers instead of a body when the database still holds the version of the admin answer kept. */
export const UNCHANGED = Symbol('unchanged');

/** An admin read checked against the answer kept: the kept answer's version (if any), and the version the read saw. */
export interface AdminKept {
  readonly unless?: string;
  seen(version: string): void;
}

/**
 * Answers a catalog read with an ETag (a 304 when If-None-Match holds it). A storefront caller's
 * answer comes from the read cache, serialized once. An admin caller's comes from the database
 * (read-your-writes, and drafts never enter the storefront's entries); a build that takes `admin`
 * (a page of the list) reads the store's catalog version in its statement and is kept apart from
 * the storefront's answers under it: asked again, the same one statement only compares versions,
 * and the kept answer is sent while the database still holds its version (decision 0099).
 */
export async function answerRead(
  cache: ReadCache,
  req: FastifyRequest,
  reply: FastifyReply,
  build: (activeOnly: boolean, locale: string | undefined, priced: PricedIn | undefined, admin?: AdminKept) => Promise<unknown>,
  options: { adminKept?: boolean } = {},
): Promise<void> {
  // The locale and the currency before anything else: one the store does not list (or an unknown market) is a 422, never an entry.
  const choice = requestLocale(req);
  const translated = choice.translated ? choice.locale : undefined;
  const market = requestMarket(req);
  const money = TenantContext.principal()?.money;
  const priced = market.converted && money ? { money, currency: market.currency } : undefined;
  // The route's own serializer (its zod schema): the same body an uncached answer would have.
  const serialize = async (activeOnly: boolean) => reply.serialize(await build(activeOnly, translated, priced)) as string;
  // Keyed by the locale and the currency chosen (Accept-Language and X-Market are not in the URL); the defaults' key is the URL alone.
  const key = `${localeKey(choice)}${moneyKey(market)}${rateKey(priced)}${req.url}`;
  let answer: CachedAnswer;
  let kept: string | undefined;
  if (storefrontCaller()) {
    kept = key;
    const slot = cache.slot(TenantContext.tenantId(), CATALOG_TOPIC, kept);
    answer = slot.hit ?? slot.fill(await serialize(true));
    reply.header('cache-control', PUBLIC);
  } else if (options.adminKept) {
    answer = await cache.checked(TenantContext.tenantId(), CATALOG_TOPIC, `${ADMIN_KEY}${key}`, async (unless) => {
      let seen = '';
      const built = await build(false, translated, priced, { unless, seen: (version) => (seen = version) });
      return built === UNCHANGED ? { version: seen } : { version: seen, body: reply.serialize(built) as string };
    });
    reply.header('cache-control', PRIVATE);
  } else {
    const body = await serialize(false);
    answer = { body, etag: entityTag(body) };
    reply.header('cache-control', PRIVATE);
  }
  const several = (TenantContext.principal()?.locales?.locales.length ?? 1) > 1;
  const markets = (TenantContext.principal()?.markets?.length ?? 0) > 0;
  reply.header('etag', answer.etag).header('vary', `${several ? VARY_LANGUAGE : VARY}${markets ? ', X-Market' : ''}`);
  if (choice.locale) reply.header('content-language', choice.locale);
  reply.type('application/json; charset=utf-8');
  // The same request again is answered before the framework while this answer stands.
  if (kept !== undefined) req.server.frontDoor.remember(req, reply, TenantContext.principal()!, CATALOG_TOPIC, kept);
  if (matchesEtag(req.headers['if-none-match'], answer.etag)) reply.code(304).send();
  else reply.send(answer.body);
  // Until it is written: a handler that resolves with nothing while its reply is still in the onSend
  // hooks is sent a second time by fastify (an error logged after every read).
  await reply;
}
