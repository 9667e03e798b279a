import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppError, Database, paginate, pgDate, type Page, type PageRequest } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { ShippingRate } from '../entities/rate.js';
import type { RateCreate } from '../schemas/rate.js';
import type { CarrierQuote, QuoteRequest, ShippingCarrier } from './carrier.js';

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

  async create(input: RateCreate): Promise<ShippingRate> {
    try {
      return await this.db.tenant(async (tx) => {
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

/**
 * The rate table as a carrier, the default one: the brackets of the parcel's route that cover its
 * billable weight, of each service only the tightest. Plain SQL in one read-only transaction:
 * checkout asks it on every shipping step.
 */
@injectable()
export class RateTable implements ShippingCarrier {
  readonly id = 'rate-table';
  readonly source = 'table' as const;

  constructor(@inject(Database) private readonly db: Database) {}

  async quote(request: QuoteRequest): Promise<CarrierQuote[]> {
    const params: unknown[] = [request.tenantId, request.origin.country, request.destination.country, request.parcel.billableWeightG];
    if (request.currency) params.push(request.currency);
    const rows = await this.db.read(
      (sql) =>
        sql.query<Row>(
          `select distinct on (carrier, service_code, currency)
             id, carrier, service_name, service_code, currency, amount, estimated_days, weight_g, created_at, updated_at
           from shipping_rate
           where tenant_id = ? and origin_country = ? and destination_country = ? and weight_g >= ?${request.currency ? ' and currency = ?' : ''}
           order by carrier, service_code, currency, weight_g, amount, id`,
          params,
        ),
      request.tenantId,
    );
    return rows.map((r) => ({
      id: r.id as string,
      carrier: r.carrier as string,
      serviceName: r.service_name as string,
      serviceCode: r.service_code as string,
      currency: r.currency as string,
      amount: Number(r.amount),
      estimatedDays: r.estimated_days as number,
      weightG: r.weight_g as number,
      createdAt: pgDate(r.created_at),
      updatedAt: pgDate(r.updated_at),
    }));
  }
}
