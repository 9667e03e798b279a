import { factVersionSql, jsonColumn, uuidArray, type KeptFacts, type TxReader } from '@qhatu/core';
import { taxOf, type LineTax, type TaxCalculator, type TaxQuote, type TaxRequest } from '@qhatu/plugin-orders';
import { injectable } from 'tsyringe';
import { settingsView } from './settings.js';

interface Facts {
  currency: string;
  prices_include_tax: boolean | null;
  tax_shipping: boolean | null;
  shipping_tax_class: string | null;
  origin_country: string | null;
  origin_province: string | null;
  regions: Array<{ province: string | null; rates: Record<string, number> }>;
  classes: Array<{ id: string; tax_class: string }>;
}

/**
 * One statement, whatever the lines: the store's currency and settings, the regions of the place
 * (its country and, if any, its province) and the classes of the lines' products and variants.
 * The parts are SQL: placeholders for `calculate`'s own statement, a caller's columns for `originFactsSql`.
 */
const factsSql = (place: { country: string; province: string }, tenantSql: string, idsSql: string) => `
  with s as (
    select t.id as tenant_id, t.currency, x.prices_include_tax, x.tax_shipping, x.shipping_tax_class, x.origin_country, x.origin_province,
           ${place.country} as country,
           ${place.province} as province
      from core_tenant t left join taxes_setting x on x.tenant_id = t.id
     where t.id = ${tenantSql})
  select s.currency, s.prices_include_tax, s.tax_shipping, s.shipping_tax_class, s.origin_country, s.origin_province,
         (select coalesce(json_agg(json_build_object('province', g.province, 'rates', g.rates)), '[]'::json)
            from taxes_region g
           where g.tenant_id = s.tenant_id and g.country_code = s.country and (g.province is null or g.province = s.province)) as regions,
         (select coalesce(json_agg(json_build_object('id', a.id, 'tax_class', a.tax_class)), '[]'::json)
            from (select distinct id from (${idsSql}) as named(id)) as wanted
            join taxes_assignment a on a.tenant_id = s.tenant_id and a.id = wanted.id) as classes
    from s`;

const FACTS = factsSql(
  { country: 'case when ?::boolean then ?::text else x.origin_country end', province: 'case when ?::boolean then upper(trim(?::text)) else x.origin_province end' },
  '?',
  'select unnest(?::uuid[])',
);

/** The topic whose version every change of a store's tax settings, rates, classes or currency bumps. */
export const TAX_FACTS_TOPIC = 'taxes';

/** The key of the store's part of the facts (not an id: ids are UUIDs). */
const STORE = 'store';

const ORIGIN_FACTS: KeptFacts<Facts | null> = {
  topic: TAX_FACTS_TOPIC,
  versionSql: (tenantSql) => factVersionSql(tenantSql, TAX_FACTS_TOPIC),
  split(column, ids) {
    const facts = jsonColumn<Facts | null>(column);
    if (!facts) return [[STORE, null] as const];
    const { classes, ...store } = facts;
    const classOf = new Map(classes.map((c) => [c.id, c.tax_class]));
    return [[STORE, store] as const, ...ids.map((id) => [id, classOf.get(id) ?? null] as const)];
  },
  join(entry, ids) {
    const store = entry(STORE) as Omit<Facts, 'classes'> | null | undefined;
    if (store === undefined) return undefined;
    if (store === null) return null;
    const classes: Facts['classes'] = [];
    for (const id of new Set(ids)) {
      const taxClass = entry(id) as string | null | undefined;
      if (taxClass === undefined) return undefined;
      if (taxClass !== null) classes.push({ id, tax_class: taxClass });
    }
    return { ...store, classes };
  },
};

/**
 * The default tax calculator: the store's own rate table. The place is the shipping address, or
 * the store's `origin_country` before one is given; its province's region wins over the country's.
 * A line's class is the one it names (a custom line), else its variant's, else its product's, else `standard`; `taxable: false` and the
 * class `exempt` pay nothing; a class without a rate in the region pays the region's `standard`.
 * Each line is rounded on its own (half up, minor unit), so the lines add up to the total exactly.
 * The amounts are in the mode the request names (`pricesIncludeTax`: a market's, an order's), else
 * in the store's `prices_include_tax`; the quote answers that mode (decision 0110).
 */
@injectable()
export class TaxRateTable implements TaxCalculator {
  /** `originFactsSql`'s column kept in memory: the store's part, and the class of each id. */
  readonly originFacts = ORIGIN_FACTS;

  /** The facts at the store's origin (no address yet: a cart), as one JSON value of a caller's statement. */
  originFactsSql(tenantSql: string, idsSql: string): string {
    return `(select row_to_json(f) from (${factsSql({ country: 'x.origin_country', province: 'x.origin_province' }, tenantSql, idsSql)}) f)`;
  }

  /** The facts at an address (its country and province as given), as one JSON value of a caller's statement. */
  placeFactsSql(tenantSql: string, idsSql: string, place: { countrySql: string; provinceSql: string }): string {
    return `(select row_to_json(f) from (${factsSql({ country: `upper(${place.countrySql})`, province: `upper(trim(${place.provinceSql}))` }, tenantSql, idsSql)}) f)`;
  }

  async calculate(tx: TxReader, request: TaxRequest, prefetched?: unknown): Promise<TaxQuote> {
    const ids = [...new Set(request.lines.flatMap((l) => [l.variantId, l.productId]))];
    const address = request.address;
    const [facts] =
      prefetched !== undefined
        ? [jsonColumn<Facts | null>(prefetched)]
        : await tx.query<Facts>(FACTS, [
            Boolean(address), address?.country_code.toUpperCase() ?? null,
            Boolean(address), address?.province ?? null,
            tx.tenantId,
            uuidArray(ids),
          ]);
    const settings = settingsView(
      facts && { pricesIncludeTax: facts.prices_include_tax, taxShipping: facts.tax_shipping ?? true, shippingTaxClass: facts.shipping_tax_class ?? 'standard', originCountry: facts.origin_country, originProvince: facts.origin_province },
      facts?.currency ?? request.currency,
    );
    const regions = facts?.regions ?? [];
    const rates = (regions.find((r) => r.province !== null) ?? regions[0])?.rates ?? {};
    const rateOf = (taxClass: string) => (taxClass === 'exempt' ? 0 : (rates[taxClass] ?? rates.standard ?? 0));
    const classOf = new Map((facts?.classes ?? []).map((c) => [c.id, c.tax_class]));
    const inclusive = request.pricesIncludeTax ?? settings.pricesIncludeTax;

    const lines: LineTax[] = request.lines.map((line) => {
      const taxClass = line.taxable ? (line.taxClass ?? classOf.get(line.variantId) ?? classOf.get(line.productId) ?? 'standard') : 'exempt';
      const rate = rateOf(taxClass);
      return { variantId: line.variantId, taxClass, rate, amount: taxOf(line.amount, rate, inclusive) };
    });
    const shippingRate = settings.taxShipping ? rateOf(settings.shippingTaxClass) : 0;
    const shipping = { rate: shippingRate, amount: taxOf(request.shipping, shippingRate, inclusive) };
    return { pricesIncludeTax: inclusive, lines, shipping, total: lines.reduce((sum, l) => sum + l.amount, 0) + shipping.amount };
  }
}
