export { acceptedLanguages, chooseLocale, LOCALE_PARAMETER, LOCALE_TAG, localeKey, localeNotListed, LocaleQuery, LocaleTag, normalizeLocale, storeLocales, TEXT_SEARCH_CONFIGS, textSearchConfig, type LocaleChoice, type StoreLocales } from './locales.js';
export { localeLiteral, translated, translationTable, TranslationTable, type TranslatedResource, type Translation } from './table.js';
export { Locales, MAX_LOCALES } from './store-locales.js';
export { requestLocale } from './request.js';
