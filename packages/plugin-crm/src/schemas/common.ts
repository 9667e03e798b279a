import { pageQuery, Timestamp, Uuid } from '@qhatu/core';
import { z, type ZodType } from 'zod';

export const Text = (max = 255) => z.string().trim().min(1, 'must not be empty').max(max);
export const OptionalText = (max = 255) => Text(max).nullable().optional();

/** Stored trimmed and lower-case, so that search and duplicates do not depend on case. */
export const Email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .pipe(z.email({ message: 'must be an e-mail address' }))
  .meta({ example: 'ana.rojas@example.com' });

export const Phone = z.string().trim().min(3).max(40).regex(/^[+0-9 ().-]+$/, 'must be a phone number: digits, spaces, + ( ) . -');

export const Tags = z
  .array(z.string().trim().min(1).max(64))
  .max(50)
  .transform((tags) => [...new Set(tags)])
  .meta({ description: 'Up to 50 labels; duplicates are dropped' });

export const Metadata = z
  .record(z.string().min(1).max(64), z.unknown())
  .refine((m) => Object.keys(m).length <= 50, 'has more than 50 keys')
  .refine((m) => JSON.stringify(m).length <= 16_384, 'is larger than 16 KiB')
  .meta({ description: 'Free-form JSON object; replaced whole by PATCH' });

export const StaffId = Uuid.meta({ description: 'A staff member of the store' });

/** A timestamp sent by a client: ISO 8601 with an offset or Z. */
export const When = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 timestamp' });

export const Out = { id: Uuid, created_at: Timestamp, updated_at: Timestamp };
export const NullableTimestamp = Timestamp.nullable();

/**
 * A list's query: `cursor`, `limit` (25 by default, clamped at 100), `sort` among `sorts`
 * (each also reversed with `-`), the filters as `filter[<field>]`, and `search` when offered.
 */
export function crmListQuery<F extends Record<string, ZodType>>(options: { sorts: readonly string[]; defaultSort: string; filters: F; search?: boolean }) {
  const sortValues = options.sorts.flatMap((s) => [s, `-${s}`]) as [string, ...string[]];
  const shape: Record<string, ZodType> = { sort: z.enum(sortValues).default(options.defaultSort) };
  if (options.search) shape.search = z.string().trim().min(1).max(200).optional().meta({ description: 'Words to find, whatever their case and accents' });
  for (const [name, schema] of Object.entries(options.filters)) shape[`filter[${name}]`] = schema.optional();
  return pageQuery().extend(shape) as unknown as z.ZodType<
    { cursor?: string; limit: number; sort: string; search?: string } & { [K in keyof F & string as `filter[${K}]`]?: z.output<F[K]> }
  >;
}
