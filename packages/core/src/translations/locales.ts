import { z } from 'zod';
import { AppError } from '../errors.js';

/**
 * The languages a store sells in (decision 0089): its default locale, whose texts are the
 * resources' own fields, and the others it lists, whose texts are translations kept beside them.
 * A locale is a BCP 47 tag of a language and an optional region: `es`, `es-PE`, `pt-BR`.
 */

/** A locale as stored and compared: `es`, `es-PE` (language in lower case, region in capitals). */
export const LOCALE_TAG = /^[a-z]{2,3}(-[A-Z]{2})?$/;

/** `ES-pe` → `es-PE`; what is not a language with an optional region stays as it is (and fails `LOCALE_TAG`). */
export function normalizeLocale(tag: string): string {
  const m = /^([A-Za-z]{2,3})(?:[-_]([A-Za-z]{2}))?$/.exec(tag.trim());
  if (!m) return tag;
  return m[2] ? `${m[1].toLowerCase()}-${m[2].toUpperCase()}` : m[1].toLowerCase();
}

/** A locale as a client sends it (any case); normalized to `es-PE`. */
export const LocaleTag = z
  .string()
  .max(16)
  .transform(normalizeLocale)
  .pipe(z.string().regex(LOCALE_TAG, 'must be a BCP 47 locale of a language and an optional region, e.g. es or es-PE'))
  .meta({ example: 'es-PE' });

/** The store's languages: the default first, then the others it lists. */
export interface StoreLocales {
  defaultLocale: string;
  /** Every locale of the store, the default first. */
  locales: readonly string[];
}

/** The store's locales from its record: the default and the others (`core_tenant.locales`). */
export function storeLocales(defaultLocale: string, others: readonly string[] | null | undefined): StoreLocales {
  return { defaultLocale, locales: [defaultLocale, ...(others ?? []).filter((l) => l !== defaultLocale)] };
}

/** The locale a read answers in. `translated`: not the default, so translations apply (field by field). */
export interface LocaleChoice {
  locale: string;
  translated: boolean;
}

/** 422 LOCALE_NOT_LISTED: a locale the store does not sell in. */
export function localeNotListed(locale: string, store: StoreLocales, path: string): AppError {
  return AppError.unprocessable('LOCALE_NOT_LISTED', `The store does not list the locale ${locale}; its locales are ${store.locales.join(', ')}`, [
    { path, message: 'is not one of the store\u2019s locales', locale, locales: [...store.locales] },
  ]);
}

/** `Accept-Language` as tags in the order of their q-values (highest first, ties as sent); `q=0` and `*` left out. */
export function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return [];
  const ranked: Array<{ tag: string; q: number; at: number }> = [];
  header.split(',').forEach((part, at) => {
    const [rawTag, ...params] = part.trim().split(';');
    const tag = rawTag.trim();
    if (!tag || tag === '*') return;
    let q = 1;
    for (const param of params) {
      const m = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(param);
      if (m) q = Number(m[1]);
    }
    if (q > 0 && q <= 1) ranked.push({ tag, q, at });
  });
  return ranked.sort((a, b) => b.q - a.q || a.at - b.at).map((r) => r.tag);
}

/**
 * The locale a storefront read answers in: the one asked with `locale` (a locale the store does
 * not list is a 422 LOCALE_NOT_LISTED), else the default locale of the market the request names,
 * else the first of `Accept-Language` the store has (the
 * same tag, or one of the same language: `es-MX` takes `es`, then `es-PE`), else the default.
 * Without the store's locales (a caller that is not a store's), the default of nothing: untranslated.
 */
export function chooseLocale(
  store: StoreLocales | undefined,
  asked: { locale?: string | null; acceptLanguage?: string | string[]; marketLocale?: string | null },
  path = 'querystring.locale',
): LocaleChoice {
  if (!store) return { locale: asked.locale ?? '', translated: false };
  const choice = (locale: string): LocaleChoice => ({ locale, translated: locale !== store.defaultLocale });
  if (asked.locale) {
    const wanted = normalizeLocale(asked.locale);
    if (!store.locales.includes(wanted)) throw localeNotListed(wanted, store, path);
    return choice(wanted);
  }
  // A market named on purpose reads in its locale before the browser's languages (decision 0097).
  if (asked.marketLocale && store.locales.includes(asked.marketLocale)) return choice(asked.marketLocale);
  // One locale: nothing to negotiate (a single-language store reads as it always did).
  if (store.locales.length === 1) return choice(store.defaultLocale);
  const header = Array.isArray(asked.acceptLanguage) ? asked.acceptLanguage.join(',') : asked.acceptLanguage;
  for (const tag of acceptedLanguages(header)) {
    const wanted = normalizeLocale(tag);
    if (store.locales.includes(wanted)) return choice(wanted);
    const language = wanted.split('-')[0].toLowerCase();
    if (store.locales.includes(language)) return choice(language);
    const same = store.locales.find((l) => l.split('-')[0] === language);
    if (same) return choice(same);
  }
  return choice(store.defaultLocale);
}

/**
 * The read cache's key part of a choice: empty for the default (the store's own texts, shared
 * whatever the store lists), the locale otherwise.
 */
export function localeKey(choice: LocaleChoice): string {
  return choice.translated ? `${choice.locale}\u0000` : '';
}

/**
 * PostgreSQL's text search configuration of a locale's language where it ships one (stemming and
 * stop words: `spanish` for es-PE), `simple` otherwise. The same table as `qhatu_text_config` in SQL.
 */
export const TEXT_SEARCH_CONFIGS: Readonly<Record<string, string>> = {
  ar: 'arabic',
  da: 'danish',
  de: 'german',
  el: 'greek',
  en: 'english',
  es: 'spanish',
  fi: 'finnish',
  fr: 'french',
  ga: 'irish',
  hu: 'hungarian',
  id: 'indonesian',
  it: 'italian',
  lt: 'lithuanian',
  nb: 'norwegian',
  ne: 'nepali',
  nl: 'dutch',
  nn: 'norwegian',
  no: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  sv: 'swedish',
  ta: 'tamil',
  tr: 'turkish',
};

export function textSearchConfig(locale: string): string {
  return TEXT_SEARCH_CONFIGS[locale.split('-')[0].toLowerCase()] ?? 'simple';
}

/** What a `locale` query parameter says, in OpenAPI. */
export const LOCALE_PARAMETER =
  "The locale to answer in, one the store lists (another is a 422 LOCALE_NOT_LISTED). Absent: the first of Accept-Language the store lists, else its default. Untranslated fields are the default locale's.";

/** The query string of a read that answers in a locale (other parameters are let through, as before it took one). */
export const LocaleQuery = z.object({ locale: LocaleTag.optional().meta({ description: LOCALE_PARAMETER }) });
