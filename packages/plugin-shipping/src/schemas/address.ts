import { z } from 'zod';
import { CountryCode } from '@qhatu/core';

const Text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max);
const Optional = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullish()
    .transform((s) => (s ? s : null));

/** ISO 3166-1 alpha-2, either case; kept upper-case. */
export const Country = CountryCode;

export const ShippingAddressInput = z
  .strictObject({
    name: Text(200).meta({ example: 'Rosa Quispe' }),
    line1: Text(300).meta({ example: 'Av. El Sol 123' }),
    line2: Optional(300),
    city: Text(100).meta({ example: 'Cusco' }),
    state: Optional(100),
    postal_code: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9][A-Za-z0-9 -]{0,19}$/, 'must be 1 to 20 letters, digits, spaces or dashes')
      .meta({ example: '08002' }),
    country: Country,
    phone: z
      .string()
      .trim()
      .regex(/^\+?[0-9][0-9 ().-]{4,30}$/, 'must be a phone number: digits, optionally +, spaces, dots, dashes and parentheses')
      .nullish()
      .transform((s) => s ?? null),
  })
  .meta({ id: 'ShippingAddress', description: 'Required: name, line1, city, postal_code, country (ISO 3166-1 alpha-2)' });
export type ShippingAddressInput = z.output<typeof ShippingAddressInput>;

export const ShippingAddressOut = z
  .object({
    name: z.string(),
    line1: z.string(),
    line2: z.string().nullable(),
    city: z.string(),
    state: z.string().nullable(),
    postal_code: z.string(),
    country: z.string(),
    phone: z.string().nullable(),
  })
  .meta({ id: 'ShippingAddressOut' });
