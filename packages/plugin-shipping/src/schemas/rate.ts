import { CurrencyCode, listQuery, LocaleQuery, LocaleTag, MARKET_PARAMETER, Money, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { Country, ShippingAddressInput } from './address.js';
import { SideCm, WeightG } from './parcel.js';

/** A carrier or service identifier: letters, digits, dots, dashes and underscores. */
export const Code = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit');

export const RateCreate = z
  .strictObject({
    carrier: Code.meta({ example: 'olva' }),
    service_name: z.string().trim().min(1, 'must not be empty').max(200).meta({ example: 'Olva Express' }),
    service_code: Code.meta({ example: 'express' }),
    currency: CurrencyCode.meta({ description: 'One of the store’s currencies (else 422 CURRENCY_NOT_LISTED)' }),
    amount: Money.meta({ description: 'Price in minor units of `currency`' }),
    estimated_days: z.number().int('must be a whole number of days').min(0).max(365),
    weight_g: WeightG.meta({ description: 'The heaviest parcel (billable weight, grams) this rate covers' }),
    origin_country: Country,
    destination_country: Country,
  })
  .meta({ id: 'ShippingRateCreate' });
export type RateCreate = z.output<typeof RateCreate>;

export const RateOut = z
  .object({
    id: z.uuid(),
    tenant_id: z.uuid(),
    carrier: z.string(),
    service_name: z.string(),
    service_code: z.string(),
    currency: z.string(),
    amount: z.number().int(),
    estimated_days: z.number().int(),
    weight_g: z.number().int().meta({ description: 'The heaviest parcel this rate covers (a live quote: the billable weight it was quoted for)' }),
    origin_country: z.string(),
    destination_country: z.string(),
    source: z.enum(['table', 'live']).meta({ description: "`table`: a row of the store's rate table; `live`: quoted by a carrier just now" }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'ShippingRate' });

export const RateListQuery = listQuery({
  filters: { carrier: Code, origin_country: Country, destination_country: Country },
  sorts: ['created_at'],
  defaultSort: '-created_at',
});
export type RateListQuery = z.output<typeof RateListQuery>;

export const RateCalculation = z
  .strictObject({
    weight_g: WeightG.meta({ description: 'Actual weight of the parcel in grams' }),
    length_cm: SideCm,
    width_cm: SideCm,
    height_cm: SideCm,
    origin_address: ShippingAddressInput,
    destination_address: ShippingAddressInput,
    currency: CurrencyCode.optional().meta({
      description: "Only rates in this currency: the rate table's rows in it, and, for a service without one, its row in the store's default currency converted (when the store lists this currency with a rate). Absent: the named market's currency, else every currency",
    }),
  })
  .meta({ id: 'ShippingRateCalculation' });
export type RateCalculation = z.output<typeof RateCalculation>;

/** Calculate's query: the locale of the service names, and the market whose currency prices the rates. */
export const RateCalculationQuery = LocaleQuery.extend({
  market: z.string().max(64).optional().meta({ description: `${MARKET_PARAMETER} Here it gives the rates' currency when the body names none.` }),
});

/** A rate's service name in a locale of the store (decision 0089); absent there, its own. */
export const RateTranslationReplace = z
  .strictObject({ service_name: z.string().trim().min(1, 'must not be empty').max(200).meta({ example: 'Express courier' }) })
  .meta({ id: 'ShippingRateTranslationReplace' });
export type RateTranslationReplace = z.output<typeof RateTranslationReplace>;

export const RateTranslationOut = z
  .object({ locale: z.string(), service_name: z.string(), created_at: Timestamp, updated_at: Timestamp })
  .meta({ id: 'ShippingRateTranslation' });

export const RateTranslationParams = z.object({ id: Uuid, locale: LocaleTag });
