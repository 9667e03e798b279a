import { AppError, jsonColumn, storeMoney, type ErrorDetail, type StoreMoney, type TxReader } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { z } from 'zod';
import type { ShippingAddress } from '../entities/shipment.js';
import type { CarrierQuote, Parcel } from './carrier.js';
import { callerMoney, convertedAmountSql } from './currencies.js';
import { Quotes, volumetricWeightG } from './quotes.js';
import { SHIPPING_SETTINGS, type ShippingSettings } from './settings.js';

/** An address as a checkout keeps it; the rate table matches its country, a live carrier gets all of it. */
const PricingAddress = z.object({
  country_code: z.string().regex(/^[A-Za-z]{2}$/),
  province: z.string().nullish(),
  city: z.string().nullish(),
  zip: z.string().nullish(),
  address1: z.string().nullish(),
  first_name: z.string().nullish(),
  last_name: z.string().nullish(),
  phone: z.string().nullish(),
});
export type PricingAddress = z.input<typeof PricingAddress>;

const Side = z.number().int().min(1).max(1000);
const PriceRequest = z.object({
  carrier: z.string(),
  service: z.string(),
  destination: PricingAddress,
  origin: PricingAddress.nullish(),
  weightGrams: z.number().int().min(0).max(100_000_000),
  dimensions: z.object({ lengthCm: Side, widthCm: Side, heightCm: Side }).nullish(),
  currency: z.string().regex(/^[A-Z]{3}$/),
});
export type ShippingPriceRequest = z.input<typeof PriceRequest>;

/** The store's price for the chosen service, or `priced: false` when the store prices no shipping. */
export type ShippingPrice =
  | {
      priced: true;
      /** Minor units of the request's currency. */
      price: number;
      carrier: string;
      service: string;
      serviceName: string;
      estimatedDays: number;
      source: 'table' | 'live';
      /** The rate table's row, or the live quote's id when the carrier gave one. */
      rateId?: string;
    }
  | { priced: false };

/** The token the checkout resolves (when the shipping plugin is installed) to price its shipping step. */
export const SHIPPING_PRICES = Symbol.for('qhatu.shipping.prices');

/** What the price statement is asked, as SQL: parameters (`?`) or a caller's expressions. */
interface PriceTerms {
  origin: string;
  tenant: string;
  carrier: string;
  service: string;
  destination: string;
  currency: string;
  weight: string;
}

/** The price statement's terms as parameters, in the order `tableRow` hands them over. */
const PARAMETERS: PriceTerms = { origin: '?::text', tenant: '?', carrier: '?', service: '?', destination: '?', currency: '?', weight: '?' };

/**
 * One statement: the origin (the one asked for, else the default warehouse's country), whether the
 * store has rates, knows the carrier and its service, and the price: of each origin's rates of the
 * service on the route, the tightest bracket that covers the parcel (as calculate offers it), the
 * cheapest of those. `converted`: the SQL of the default currency's amount in the currency asked,
 * when the store converts to it; then a bracket in that currency comes first, else the default
 * currency's tightest, converted.
 */
const priceSql = (converted: string | null, t: PriceTerms = PARAMETERS) => `
  with origin as (
    select coalesce(${t.origin}, w.address->>'country') as country, w.name as warehouse_name, w.address as warehouse_address
    from (select 1) one left join inventory_warehouse w on w.tenant_id = ${t.tenant} and w.is_default
  ),
  service as (
    select id, service_code, service_name, amount, estimated_days, weight_g, origin_country, destination_country, currency
    from shipping_rate where tenant_id = ${t.tenant} and carrier = ${t.carrier}
  ),
  tightest as (
    select distinct on (s.origin_country) s.id, s.service_name, ${converted ? `case when s.currency = ? then s.amount else ${converted} end as amount` : 's.amount'}, s.estimated_days
    from service s cross join origin o
    where s.service_code = ${t.service} and s.destination_country = ${t.destination} and ${converted ? 's.currency in (?, ?)' : `s.currency = ${t.currency}`} and s.weight_g >= ${t.weight}
      and (o.country is null or s.origin_country = o.country)
    order by s.origin_country, ${converted ? 's.currency <> ?, ' : ''}s.weight_g, s.amount, s.id
  )
  select exists (select 1 from shipping_rate where tenant_id = ${t.tenant}) as has_rates,
    exists (select 1 from service) as carrier_known,
    exists (select 1 from service where service_code = ${t.service}) as service_known,
    o.country as origin_country, o.warehouse_name, o.warehouse_address,
    m.id, m.service_name, m.amount::text as amount, m.estimated_days
  from origin o left join lateral (select * from tightest order by amount, id limit 1) m on true`;
const PRICE_SQL = priceSql(null);

/** A caller's read of the price statement (`ShippingPrices.priceReadSql`): what it was asked, and its row. */
interface PriceRead {
  carrier: string | null;
  service: string | null;
  destination: string | null;
  currency: string | null;
  weight: number | null;
  row: PriceRow | null;
}

interface PriceRow {
  has_rates: boolean;
  carrier_known: boolean;
  service_known: boolean;
  origin_country: string | null;
  warehouse_name: string | null;
  warehouse_address: Record<string, string | null> | null;
  id: string | null;
  service_name: string | null;
  amount: string | null;
  estimated_days: number | null;
}

type Request = z.output<typeof PriceRequest>;

const NO_QUOTES = { quotes: [] as CarrierQuote[], failed: false };

/**
 * What shipping costs, priced by the store whatever a client sends: the rate table's price for the
 * carrier, service and parcel, else a live carrier's quote for them. Runs in the caller's
 * transaction (the checkout's shipping step), one statement plus, only for a service the table
 * does not price, one request to each live carrier.
 */
@injectable()
export class ShippingPrices {
  constructor(
    @inject(Quotes) private readonly quotes: Quotes,
    @inject(SHIPPING_SETTINGS) private readonly settings: ShippingSettings,
  ) {}

  async priceFor(tx: TxReader, input: ShippingPriceRequest, read?: unknown): Promise<ShippingPrice> {
    const request = parseRequest(input);
    const billable = this.billableWeightG(request);
    const destination = request.destination.country_code.toUpperCase();
    const money = callerMoney();
    let row = readFits(read, request, billable, destination, money) ?? (await this.tableRow(tx, request, billable, destination, money));
    if (row.id === null && row.service_known && !money) {
      // No caller's token (a job): the store's currencies are read only when the currency's own rates do not price the service.
      const stored = await storeMoney(tx);
      if (convertedAmountSql(stored, request.currency)) row = await this.tableRow(tx, request, billable, destination, stored);
    }
    const found = { carrier: request.carrier, service: request.service };
    if (row.id !== null) {
      return { priced: true, ...found, price: Number(row.amount), serviceName: row.service_name!, estimatedDays: row.estimated_days!, source: 'table', rateId: row.id };
    }
    if (!row.has_rates && !this.quotes.hasLive) return { priced: false };
    const live = this.quotes.hasLive ? await this.askLive(tx.tenantId, request, row, billable) : NO_QUOTES;
    const quote = live.quotes
      .filter((q) => q.carrier === request.carrier && q.serviceCode === request.service && q.currency === request.currency)
      .sort((a, b) => a.amount - b.amount)[0];
    if (quote) {
      return { priced: true, ...found, price: quote.amount, serviceName: quote.serviceName, estimatedDays: quote.estimatedDays, source: 'live', ...(quote.id ? { rateId: quote.id } : {}) };
    }
    if (live.failed) {
      throw new AppError(503, 'SHIPPING_QUOTE_UNAVAILABLE', 'A carrier could not be asked for its price just now; try again', [
        { path: 'body.shipping_rate', message: 'a carrier that quotes live did not answer' },
      ]);
    }
    throw refusal(request, billable, destination, {
      carrierKnown: row.carrier_known || live.quotes.some((q) => q.carrier === request.carrier),
      serviceKnown: row.service_known || live.quotes.some((q) => q.carrier === request.carrier && q.serviceCode === request.service),
    });
  }

  /**
   * The price statement as one JSON column of a caller's statement (the checkout's locking read),
   * handed back as `priceFor`'s `read`: its terms as SQL (the carrier, the service, the destination's
   * country in upper case, the currency, the parcel's weight in grams), no origin asked for. It prices
   * in the currency of the rates only; `priceFor` reads again where the request is not the one read
   * or where the store converts to the currency.
   */
  priceReadSql(terms: Omit<PriceTerms, 'origin'>): string {
    // Each term worked out once (the weight sums the caller's lines), then named by the statement.
    const asked = { origin: 'null::text', tenant: 'asked.tenant', carrier: 'asked.carrier', service: 'asked.service', destination: 'asked.destination', currency: 'asked.currency', weight: 'asked.weight' };
    return `(select json_build_object('carrier', asked.carrier, 'service', asked.service, 'destination', asked.destination, 'currency', asked.currency, 'weight', asked.weight,
      'row', (select row_to_json(r) from (${priceSql(null, asked)}) r))
      from (select ${terms.tenant} as tenant, ${terms.carrier} as carrier, ${terms.service} as service, ${terms.destination} as destination,
                   ${terms.currency} as currency, ${terms.weight} as weight) as asked)`;
  }

  /** The statement above, converting from the default currency when the store does to the currency asked. */
  private async tableRow(tx: TxReader, request: Request, billable: number, destination: string, money: StoreMoney | undefined): Promise<PriceRow> {
    const origin = [request.origin?.country_code.toUpperCase() ?? null, tx.tenantId, tx.tenantId, request.carrier];
    const tail = [tx.tenantId, request.service];
    const converted = convertedAmountSql(money, request.currency, 's.amount');
    if (converted && money) {
      const currency = request.currency;
      const [row] = await tx.query<PriceRow>(priceSql(converted), [...origin, currency, request.service, destination, currency, money.defaultCurrency, billable, currency, ...tail]);
      return row;
    }
    // Prepared: planning it costs ten times running it (the converting one's text names the store's rates, and is not).
    const [row] = await tx.query<PriceRow>(PRICE_SQL, [...origin, request.service, destination, request.currency, billable, ...tail], { prepare: true });
    return row;
  }

  private billableWeightG(request: Request): number {
    const d = request.dimensions;
    return d ? Math.max(request.weightGrams, volumetricWeightG(d.lengthCm, d.widthCm, d.heightCm, this.settings.volumetricDivisor)) : request.weightGrams;
  }

  /**
   * The live carriers' quotes from the origin asked for, else the default warehouse. Neither known:
   * none for a service of the table (its route is what is missing), else 422.
   */
  private async askLive(tenantId: string, request: Request, row: PriceRow, billable: number): Promise<{ quotes: CarrierQuote[]; failed: boolean }> {
    const origin = request.origin ? shippingAddress(request.origin) : warehouseAddress(row);
    if (!origin && row.service_known) return NO_QUOTES;
    if (!origin) {
      throw AppError.unprocessable('SHIPPING_ORIGIN_UNKNOWN', "The store's default warehouse has no address country: a live carrier cannot be asked", [
        { path: 'body.shipping_rate', message: 'give the default warehouse an address with its country' },
      ]);
    }
    const d = request.dimensions;
    const parcel: Parcel = { weightG: request.weightGrams, lengthCm: d?.lengthCm ?? 0, widthCm: d?.widthCm ?? 0, heightCm: d?.heightCm ?? 0, billableWeightG: billable };
    return this.quotes.live({ tenantId, parcel, origin, destination: shippingAddress(request.destination), currency: request.currency });
  }
}

/** The row of a caller's read (`priceReadSql`) when it was read for this very request, priced without converting. */
function readFits(read: unknown, request: Request, billable: number, destination: string, money: StoreMoney | undefined): PriceRow | undefined {
  if (!read || request.origin || convertedAmountSql(money, request.currency)) return undefined;
  const r = jsonColumn<PriceRead>(read);
  const asked = r.carrier === request.carrier && r.service === request.service && r.destination === destination && r.currency === request.currency && Number(r.weight) === billable;
  return asked && r.row ? r.row : undefined;
}

function parseRequest(input: ShippingPriceRequest): Request {
  const parsed = PriceRequest.safeParse(input);
  if (parsed.success) return parsed.data;
  throw AppError.validation('The shipping price request is malformed', parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })));
}

/** 422 naming what is wrong with the chosen rate: the carrier, its service, or the route and parcel. */
function refusal(request: Request, billable: number, destination: string, known: { carrierKnown: boolean; serviceKnown: boolean }): AppError {
  if (!known.carrierKnown) {
    return AppError.unprocessable('SHIPPING_CARRIER_UNKNOWN', `This store does not ship with "${request.carrier}"`, [
      { path: 'body.shipping_rate.carrier', message: 'is not a carrier of this store' },
    ]);
  }
  if (!known.serviceKnown) {
    return AppError.unprocessable('SHIPPING_SERVICE_UNKNOWN', `The carrier "${request.carrier}" has no service "${request.service}" in this store`, [
      { path: 'body.shipping_rate.service', message: 'is not a service of this carrier' },
    ]);
  }
  const detail: ErrorDetail = { path: 'body.shipping_rate', message: 'no rate of this service covers the route and the parcel', destination_country: destination, billable_weight_g: billable, currency: request.currency };
  return AppError.unprocessable('SHIPPING_RATE_NOT_FOUND', `"${request.carrier}" "${request.service}" does not take this parcel to ${destination} in ${request.currency}`, [detail]);
}

const text = (value: string | null | undefined) => value ?? '';

function shippingAddress(a: z.output<typeof PricingAddress>): ShippingAddress {
  return {
    name: [a.first_name, a.last_name].filter(Boolean).join(' '),
    line1: text(a.address1),
    line2: null,
    city: text(a.city),
    state: a.province ?? null,
    postal_code: text(a.zip),
    country: a.country_code.toUpperCase(),
    phone: a.phone ?? null,
  };
}

function warehouseAddress(row: PriceRow): ShippingAddress | null {
  const a = row.warehouse_address;
  if (!a?.country) return null;
  return { name: text(row.warehouse_name), line1: text(a.line1), line2: null, city: text(a.city), state: a.state ?? null, postal_code: text(a.postal_code), country: a.country, phone: null };
}
