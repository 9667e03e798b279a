import { CountryCode, listQuery, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';

/** An ISO 3166-1 alpha-2 country code (one officially assigned), upper-cased. */
export const Country = CountryCode;

/** A province or state as shipping addresses give it (e.g. `CA`, `Lima`); compared upper-case. */
export const Province = z.string().trim().min(1, 'must not be empty').max(100).toUpperCase();

/** A tax class name: `standard`, `reduced`, `exempt` or any the store names. */
export const TaxClassName = z
  .string()
  .trim()
  .regex(/^[a-z][a-z0-9_-]{0,39}$/, 'must be 1 to 40 lower-case letters, digits, dashes or underscores, starting with a letter');

/** Basis points: 1800 = 18 %. */
export const RateBp = z.number().int('must be a whole number of basis points').min(0).max(10_000, 'must be at most 10000 (100 %)');

const Rates = z
  .record(TaxClassName, RateBp)
  .refine((r) => !('exempt' in r), { message: 'exempt is always 0 % and takes no rate' })
  .refine((r) => Object.keys(r).length <= 50, { message: 'at most 50 classes' })
  .meta({ description: 'Rate per tax class in basis points, e.g. {"standard": 1800}; a class without a rate here is taxed at `standard`', example: { standard: 1800, reduced: 1000 } });

export const TaxSettingsPatch = z
  .strictObject({
    prices_include_tax: z.boolean().nullable().meta({ description: 'Whether catalog prices include the tax; null: the default (true for PEN stores, false otherwise)' }),
    tax_shipping: z.boolean().meta({ description: 'Whether shipping is taxed (at `shipping_tax_class`)' }),
    shipping_tax_class: TaxClassName,
    origin_country: Country.nullable().meta({ description: "The store's own country: the tax of a cart or checkout before the shopper gives an address" }),
    origin_province: Province.nullable(),
  })
  .partial()
  .meta({ id: 'TaxSettingsPatch' });
export type TaxSettingsPatch = z.output<typeof TaxSettingsPatch>;

export const TaxSettingsOut = z
  .object({
    prices_include_tax: z.boolean().meta({ description: 'As it applies (the default resolved)' }),
    prices_include_tax_default: z.boolean().meta({ description: 'Whether prices_include_tax is the default for the store currency rather than set' }),
    tax_shipping: z.boolean(),
    shipping_tax_class: z.string(),
    origin_country: z.string().nullable(),
    origin_province: z.string().nullable(),
    updated_at: Timestamp.nullable(),
  })
  .meta({ id: 'TaxSettings' });

export const RegionCreate = z
  .strictObject({
    name: z.string().trim().min(1, 'must not be empty').max(200).optional(),
    country_code: Country,
    province: Province.nullable().optional().meta({ description: 'A province or state (as addresses give it); absent: the whole country' }),
    rates: Rates.default({}),
  })
  .meta({ id: 'TaxRegionCreate' });
export type RegionCreate = z.output<typeof RegionCreate>;

export const RegionPatch = z
  .strictObject({ name: z.string().trim().min(1, 'must not be empty').max(200), rates: Rates })
  .partial()
  .meta({ id: 'TaxRegionPatch' });
export type RegionPatch = z.output<typeof RegionPatch>;

export const RegionOut = z
  .object({
    id: z.uuid(),
    name: z.string(),
    country_code: z.string(),
    province: z.string().nullable(),
    rates: z.record(z.string(), z.number().int()),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'TaxRegion' });

export const RegionListQuery = listQuery({ filters: { country_code: Country }, sorts: ['created_at'], defaultSort: 'created_at' });
export type RegionListQuery = z.output<typeof RegionListQuery>;

export const RateParams = z.object({ id: Uuid, tax_class: TaxClassName });
export const RatePut = z.strictObject({ rate: RateBp.meta({ description: 'Basis points (1800 = 18 %)' }) }).meta({ id: 'TaxRatePut' });

export const ClassParams = z.object({ tax_class: TaxClassName });
export const ClassAssign = z
  .strictObject({
    product_ids: z.array(Uuid).max(100).default([]),
    variant_ids: z.array(Uuid).max(100).default([]),
  })
  .refine((b) => b.product_ids.length + b.variant_ids.length > 0, { message: 'name at least one product or variant', path: ['product_ids'] })
  .meta({ id: 'TaxClassAssign' });
export type ClassAssign = z.output<typeof ClassAssign>;

export const AssignmentOut = z
  .object({
    id: z.uuid().meta({ description: 'The product or variant id' }),
    target_type: z.enum(['product', 'variant']),
    tax_class: z.string(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'TaxClassAssignment' });

export const AssignmentListQuery = listQuery({ filters: { tax_class: TaxClassName }, sorts: ['created_at'], defaultSort: 'created_at' });
export type AssignmentListQuery = z.output<typeof AssignmentListQuery>;
