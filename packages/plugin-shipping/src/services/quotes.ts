import { randomUUID } from 'node:crypto';
import { TenantContext } from '@qhatu/core';
import type { FastifyBaseLogger as Logger } from 'fastify';
import { z } from 'zod';
import type { ShippingAddress } from '../entities/shipment.js';
import type { RateCalculation } from '../schemas/rate.js';
import type { CarrierQuote, Parcel, QuoteRequest, ShippingCarrier } from './carrier.js';
import type { ShippingSettings } from './settings.js';

/** A rate as calculate answers it. */
export interface RateQuote {
  id: string;
  tenantId: string;
  carrier: string;
  serviceName: string;
  serviceCode: string;
  currency: string;
  amount: number;
  estimatedDays: number;
  weightG: number;
  originCountry: string;
  destinationCountry: string;
  source: 'table' | 'live';
  createdAt: Date;
  updatedAt: Date;
}

/** What a carrier plugin's answer must look like; anything else is left out (and logged). */
const QuoteShape = z.object({
  id: z.uuid().optional(),
  carrier: z.string().min(1).max(64),
  serviceName: z.string().min(1).max(200),
  serviceCode: z.string().min(1).max(64),
  currency: z.string().regex(/^[A-Z]{3}$/),
  amount: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  estimatedDays: z.number().int().min(0).max(365),
  weightG: z.number().int().min(1).optional(),
  createdAt: z.date().optional(),
  updatedAt: z.date().optional(),
});

/** length × width × height (cm³) ÷ divisor (cm³ per kg), in whole grams rounded up. */
export function volumetricWeightG(lengthCm: number, widthCm: number, heightCm: number, divisor: number): number {
  return Math.ceil((lengthCm * widthCm * heightCm * 1000) / divisor);
}

/**
 * Calculate: every carrier asked at once, the answers merged, cheapest first. Built by the plugin
 * with every registered `SHIPPING_CARRIER` (the rate table first).
 */
export class Quotes {
  constructor(
    private readonly carriers: ShippingCarrier[],
    private readonly settings: ShippingSettings,
    private readonly logger: Logger,
  ) {}

  parcelOf(input: Pick<RateCalculation, 'weight_g' | 'length_cm' | 'width_cm' | 'height_cm'>): Parcel {
    const volumetric = volumetricWeightG(input.length_cm, input.width_cm, input.height_cm, this.settings.volumetricDivisor);
    return {
      weightG: input.weight_g,
      lengthCm: input.length_cm,
      widthCm: input.width_cm,
      heightCm: input.height_cm,
      billableWeightG: Math.max(input.weight_g, volumetric),
    };
  }

  /**
   * The rates of every carrier for the parcel on this route: cheapest first, then fastest, then by
   * carrier and service. A carrier that fails or does not answer in time is left out.
   */
  async calculate(input: RateCalculation): Promise<RateQuote[]> {
    const tenantId = TenantContext.tenantId();
    const parcel = this.parcelOf(input);
    const origin = input.origin_address as ShippingAddress;
    const destination = input.destination_address as ShippingAddress;
    const answers = await Promise.all(
      this.carriers.map((carrier) => this.ask(carrier, { tenantId, parcel, origin, destination, currency: input.currency })),
    );
    const now = new Date();
    const rates = answers.flatMap(({ carrier, quotes }) =>
      quotes.map((q): RateQuote => ({
        id: q.id ?? randomUUID(),
        tenantId,
        carrier: q.carrier,
        serviceName: q.serviceName,
        serviceCode: q.serviceCode,
        currency: q.currency,
        amount: q.amount,
        estimatedDays: q.estimatedDays,
        weightG: q.weightG ?? parcel.billableWeightG,
        originCountry: origin.country,
        destinationCountry: destination.country,
        source: carrier.source,
        createdAt: q.createdAt ?? now,
        updatedAt: q.updatedAt ?? now,
      })),
    );
    return rates.sort(
      (a, b) =>
        a.amount - b.amount ||
        a.estimatedDays - b.estimatedDays ||
        a.carrier.localeCompare(b.carrier) ||
        a.serviceCode.localeCompare(b.serviceCode) ||
        a.id.localeCompare(b.id),
    );
  }

  /** Whether a plugin added a carrier that quotes live (the rate table is always there). */
  get hasLive(): boolean {
    return this.carriers.some((c) => c.source === 'live');
  }

  /**
   * The live carriers' quotes for a parcel (the rate table is priced apart, in the caller's
   * transaction). `failed`: a carrier threw or did not answer in time, so its quotes are unknown.
   */
  async live(request: Omit<QuoteRequest, 'signal'>): Promise<{ quotes: CarrierQuote[]; failed: boolean }> {
    const answers = await Promise.all(this.carriers.filter((c) => c.source === 'live').map((carrier) => this.ask(carrier, request)));
    return { quotes: answers.flatMap((a) => a.quotes), failed: answers.some((a) => a.failed) };
  }

  private async ask(
    carrier: ShippingCarrier,
    request: Omit<QuoteRequest, 'signal'>,
  ): Promise<{ carrier: ShippingCarrier; quotes: CarrierQuote[]; failed: boolean }> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new Error(`no answer within ${this.settings.quoteTimeoutMs} ms`));
      }, this.settings.quoteTimeoutMs);
    });
    try {
      const answer = await Promise.race([carrier.quote({ ...request, signal: controller.signal }), timeout]);
      if (!Array.isArray(answer)) throw new Error('the carrier did not answer a list of quotes');
      const quotes: CarrierQuote[] = [];
      for (const quote of answer) {
        const parsed = QuoteShape.safeParse(quote);
        if (parsed.success) quotes.push(parsed.data);
        else this.logger.warn({ carrier: carrier.id, issues: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) }, 'shipping quote left out');
      }
      return { carrier, quotes, failed: false };
    } catch (err) {
      // The rate table is the store's own: its failure is a real error, not a missing carrier.
      if (carrier.source === 'table') throw err;
      this.logger.warn({ err, carrier: carrier.id }, 'shipping carrier left out of the quote');
      return { carrier, quotes: [], failed: true };
    } finally {
      clearTimeout(timer);
    }
  }
}
