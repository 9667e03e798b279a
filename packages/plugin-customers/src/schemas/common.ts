import { z } from 'zod';

/** Stored trimmed and lower-case: one customer per e-mail and store, whatever the case. */
export const Email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .pipe(z.email({ message: 'must be an e-mail address' }))
  .meta({ example: 'ana.quispe@example.com' });

const E164 = /^\+[1-9][0-9]{6,14}$/;

/**
 * An international phone number (E.164): `+`, the country code and the number, at most 15
 * digits; spaces, dots, dashes and parentheses are accepted and dropped.
 */
export const Phone = z
  .string()
  .trim()
  .max(32)
  .overwrite((s) => s.replace(/[\s().-]/g, ''))
  .refine((s) => E164.test(s), 'must be an international phone number: + and country code, e.g. +51 987 654 321')
  .meta({
    description: 'E.164 after spaces, dots, dashes and parentheses are dropped: +, country code, at most 15 digits',
    example: '+51 987 654 321',
  });

/** A first or last name; empty means none. */
export const PersonName = z.string().trim().max(100);

export const Tags = z
  .array(z.string().trim().min(1).max(64))
  .max(50)
  .overwrite((tags) => [...new Set(tags)])
  .meta({ description: 'At most 50 distinct tags of 1 to 64 characters; duplicates are dropped' });

/** ISO 3166-1 alpha-2, either case; stored upper-case. */
export { CountryCode } from '@qhatu/core';

export const Password = z
  .string()
  .min(8, 'must be at least 8 characters')
  .max(200, 'must be at most 200 characters')
  .meta({ description: '8 to 200 characters; stored only as a scrypt hash' });

/** An unpaginated list takes no query parameters. */
export const NoQuery = z.strictObject({});
