import type { ShippingAddress } from '../entities/shipment.js';

/**
 * The parcel a quote is for; weights in grams, sides in centimetres. A checkout knows the weight
 * only: its sides are then 0 and the billable weight is the weight.
 */
export interface Parcel {
  weightG: number;
  lengthCm: number;
  widthCm: number;
  heightCm: number;
  /** The larger of the actual and the volumetric weight (the store's divisor). */
  billableWeightG: number;
}

export interface QuoteRequest {
  tenantId: string;
  parcel: Parcel;
  origin: ShippingAddress;
  destination: ShippingAddress;
  /** Only rates in this currency, when given. */
  currency?: string;
  /** Aborted when the quote took too long: stop the request to the carrier. */
  signal: AbortSignal;
}

/** One service a carrier offers for the parcel. */
export interface CarrierQuote {
  /** A row of the rate table: its id; a live quote leaves it out (one is made up per answer). */
  id?: string;
  carrier: string;
  serviceName: string;
  serviceCode: string;
  currency: string;
  /** Minor units of `currency`. */
  amount: number;
  estimatedDays: number;
  /** The heaviest parcel the rate covers; a live quote may leave it out (the billable weight). */
  weightG?: number;
  createdAt?: Date;
  updatedAt?: Date;
}

/**
 * A source of shipping rates. The store's rate table is one, always installed; a plugin adds a
 * carrier that quotes live with `container.register(SHIPPING_CARRIER, { useValue: carrier })`.
 * `quote` answers the services that can take the parcel on this route ([] when none); it may
 * throw, or be cut off by `signal` after the store's quote timeout: calculate then answers
 * without it.
 */
export interface ShippingCarrier {
  /** Names the carrier in logs, e.g. `olva-live`. */
  readonly id: string;
  /** `table` for the rate table, `live` for a carrier asked over its API. */
  readonly source: 'table' | 'live';
  quote(request: QuoteRequest): Promise<CarrierQuote[]>;
}

export const SHIPPING_CARRIER = Symbol.for('qhatu.shipping.carrier');
