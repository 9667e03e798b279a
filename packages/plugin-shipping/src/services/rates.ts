import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppError, Database, paginate, pgDate, type Page, type PageRequest } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { ShippingRate } from '../entities/rate.js';
import type { RateCreate } from '../schemas/rate.js';
import type { CarrierQuote, QuoteRequest, ShippingCarrier } from './carrier.js';
import { assertListed, callerMoney, convertedAmountSql, moneyOf } from './currencies.js';

export interface RateFilter {
  carrier?: string;
  origin_country?: string;
  destination_country?: string;
}

export const rateNotFound = () => AppError.notFound('Shipping rate', 'SHIPPING_RATE_NOT_FOUND');

/** The store's rate table: the only place that writes it. */
@injectable()
export class Rates {
  constructor(@inject(Database) private readonly db: Database) {}

  /** A rate in one of the store's currencies (else 422 CURRENCY_NOT_LISTED). */
  async create(input: RateCreate): Promise<ShippingRate> {
    try {
      return await this.db.tenant(async (tx) => {
        assertListed(await moneyOf(tx), input.currency, 'body.currency');
        const at = tx.now();
        const rate = tx.em.create(ShippingRate, {
          id: randomUUID(),
          tenantId: tx.tenantId,
          carrier: input.carrier,
          serviceName: input.service_name,
          serviceCode: input.service_code,
          currency: input.currency,
          amount: input.amount,
          estimatedDays: input.estimated_days,
          weightG: input.weight_g,
          originCountry: input.origin_country,
          destinationCountry: input.destination_country,
          createdAt: at,
          updatedAt: at,
        });
        await tx.em.flush();
        return rate;
      });
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) {
        throw AppError.conflict('The rate table already has a price for this service, route, currency and weight', 'SHIPPING_RATE_EXISTS', [
          { path: 'body.weight_g', message: 'another rate of this carrier and service covers the same route up to this weight' },
        ]);
      }
      throw error;
    }
  }

  async list(page: PageRequest, filter: RateFilter): Promise<Page<ShippingRate>> {
    return this.db.tenant(async ({ em }) => {
      const where: Record<string, unknown> = {};
      if (filter.carrier) where.carrier = filter.carrier;
      if (filter.origin_country) where.originCountry = filter.origin_country;
      if (filter.destination_country) where.destinationCountry = filter.destination_country;
      return paginate(em, ShippingRate, where, page);
    });
  }

  async get(id: string): Promise<ShippingRate> {
    return this.db.tenant(async ({ em }) => {
      const rate = await em.findOne(ShippingRate, { id });
      if (!rate) throw rateNotFound();
      return rate;
    });
  }

  /** Removes the rate; shipments never point at rates, so nothing else changes. */
  async remove(id: string): Promise<void> {
    await this.db.tenant(async ({ em }) => {
      const removed = await em.nativeDelete(ShippingRate, { id });
      if (removed === 0) throw rateNotFound();
    });
  }
}

type Row = Record<string, unknown>;

/** The route's rates that cover the parcel, of each service (and currency) only the tightest bracket. */
const BRACKETS_SQL = (inCurrency: boolean) => `select distinct on (carrier, service_code, currency)
     id, carrier, service_name, service_code, currency, amount, estimated_days, weight_g, created_at, updated_at
   from shipping_rate
   where tenant_id = ? and origin_country = ? and destination_country = ? and weight_g >= ?${inCurrency ? ' and currency = ?' : ''}
   order by carrier, service_code, currency, weight_g, amount, id`;

/**
 * The same in a currency the store converts to: of each service, its tightest bracket in that
 * currency, else its tightest in the default currency with the amount converted (`amount` is the
 * SQL of the conversion, the store's own literals).
 */
const CONVERTED_BRACKETS_SQL = (amount: string) => `select distinct on (carrier, service_code)
     id, carrier, service_name, service_code, ?::text as currency,
     case when currency = ? then amount else ${amount} end as amount,
     estimated_days, weight_g, created_at, updated_at
   from shipping_rate
   where tenant_id = ? and origin_country = ? and destination_country = ? and weight_g >= ? and currency in (?, ?)
   order by carrier, service_code, currency <> ?, weight_g, amount, id`;

/**
 * The rate table as a carrier, the default one: the brackets of the parcel's route that cover its
 * billable weight, of each service only the tightest. Plain SQL in one read-only transaction:
 * checkout asks it on every shipping step. In a currency of the store other than its default, a
 * service without a rate in it is offered at its default-currency rate, converted.
 */
@injectable()
export class RateTable implements ShippingCarrier {
  readonly id = 'rate-table';
  readonly source = 'table' as const;

  constructor(@inject(Database) private readonly db: Database) {}

  async quote(request: QuoteRequest): Promise<CarrierQuote[]> {
    const route = [request.tenantId, request.origin.country, request.destination.country, request.parcel.billableWeightG];
    const currency = request.currency;
    const rows = await this.db.read(async (sql) => {
      // The caller's token carries the store's currencies; without one (a job), one statement reads them.
      const money = currency ? (callerMoney() ?? (await moneyOf(sql))) : undefined;
      const converted = convertedAmountSql(money, currency);
      if (converted && money && currency) {
        return sql.query<Row>(CONVERTED_BRACKETS_SQL(converted), [currency, currency, ...route, currency, money.defaultCurrency, currency]);
      }
      return sql.query<Row>(BRACKETS_SQL(Boolean(currency)), currency ? [...route, currency] : route);
    }, request.tenantId);
    return rows.map((r) => ({
      id: r.id as string,
      carrier: r.carrier as string,
      serviceName: r.service_name as string,
      serviceCode: r.service_code as string,
      currency: (r.currency as string).trim(),
      amount: Number(r.amount),
      estimatedDays: r.estimated_days as number,
      weightG: r.weight_g as number,
      createdAt: pgDate(r.created_at),
      updatedAt: pgDate(r.updated_at),
    }));
  }
}
