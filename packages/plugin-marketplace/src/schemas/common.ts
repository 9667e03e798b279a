import { z } from 'zod';

export const Text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max);
export const Email = z.email({ message: 'must be an e-mail address' }).max(320).transform((s) => s.toLowerCase());
export const Password = z.string().min(10, 'must be at least 10 characters').max(200);

/** A percentage from 0 to 100 with at most two decimals (12.5, 7.25), kept exactly. */
export const Percentage = z
  .number()
  .min(0, 'must be at least 0')
  .max(100, 'must be at most 100')
  .refine((n) => Math.abs(n * 100 - Math.round(n * 100)) < 1e-6, 'must have at most two decimals');

/** Minor units per unit. */
export const UnitPrice = z.number().int('must be a whole number of minor units').min(0).max(2_147_483_647);
export const Stock = z.number().int('must be a whole number').min(0, 'must be at least 0').max(1_000_000_000);
