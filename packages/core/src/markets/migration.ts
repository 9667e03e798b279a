import { APP_ROLE, tenantTable } from '../db/migrations.js';

/**
 * Core's migration of a store's currencies and markets (decision 0097), and the SQL twin of
 * `convertAt`: an amount of the default currency in another, by its rate and rounding.
 */
export const marketStatements: string[] = [
  `CREATE TABLE core_store_currency (
     tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
     code char(3) NOT NULL,
     rate numeric(20, 10) CHECK (rate > 0),
     rounding_increment int NOT NULL DEFAULT 1 CHECK (rounding_increment BETWEEN 1 AND 1000000),
     rounding text NOT NULL DEFAULT 'nearest' CHECK (rounding IN ('nearest', 'up', 'down')),
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (tenant_id, code))`,
  tenantTable('core_store_currency'),
  `CREATE TABLE core_market (
     id uuid NOT NULL,
     tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
     handle text NOT NULL,
     name text NOT NULL,
     countries text[] NOT NULL DEFAULT '{}',
     currency char(3) NOT NULL,
     default_locale text NOT NULL,
     prices_include_tax boolean,
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (tenant_id, id),
     UNIQUE (tenant_id, handle))`,
  tenantTable('core_market'),
  // Exact: numeric arithmetic, then the currency's increment and rule (halves away from zero for 'nearest').
  `CREATE FUNCTION qhatu_convert(amount bigint, rate numeric, shift int, increment int, rounding text) RETURNS bigint
     LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
     SELECT (CASE rounding
       WHEN 'up' THEN ceil(amount * rate * power(10::numeric, shift) / increment)
       WHEN 'down' THEN floor(amount * rate * power(10::numeric, shift) / increment)
       ELSE round(amount * rate * power(10::numeric, shift) / increment) END)::bigint * increment $$`,
  `GRANT EXECUTE ON FUNCTION qhatu_convert(bigint, numeric, int, int, text) TO ${APP_ROLE}`,
];
