import { APP_ROLE } from '../db/migrations.js';
import { TEXT_SEARCH_CONFIGS } from './locales.js';

/**
 * Core's migration of a store's languages (decision 0089): the locales a store lists besides its
 * default, and the text search configuration of a locale (`textSearchConfig` in SQL).
 */
export const localeStatements: string[] = [
  // The store's other locales; the default stays `default_locale`. Empty: a single-language store.
  `ALTER TABLE core_tenant ADD COLUMN locales text[] NOT NULL DEFAULT '{}'`,
  // Constants of type regconfig are resolved when the function is made, so it is IMMUTABLE indeed.
  `CREATE FUNCTION qhatu_text_config(locale text) RETURNS regconfig LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
     SELECT CASE split_part(lower(locale), '-', 1)
       ${Object.entries(TEXT_SEARCH_CONFIGS).map(([language, config]) => `WHEN '${language}' THEN '${config}'::regconfig`).join('\n       ')}
       ELSE 'simple'::regconfig END $$`,
  `GRANT EXECUTE ON FUNCTION qhatu_text_config(text) TO ${APP_ROLE}`,
];
