import { isDeepStrictEqual } from 'node:util';
import { z, type ZodType } from 'zod';

export const Uuid = z.uuid({ message: 'must be a UUID' });

const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is written as a UUID (any version, either case): what PostgreSQL's `uuid` reads. */
export function isUuid(value: string): boolean {
  return UUID_TEXT.test(value);
}
export const IdParams = z.object({ id: Uuid });

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().meta({ example: 'VALIDATION_ERROR' }),
      message: z.string(),
      details: z.array(z.record(z.string(), z.unknown())),
    }),
  })
  .meta({ id: 'Error' });

export const Pagination = z
  .object({
    cursor: z.string().nullable().meta({ description: "The next page's cursor; null on the last page" }),
    has_next: z.boolean(),
    limit: z.number().int().optional(),
    total: z.number().int().optional(),
  })
  .meta({ id: 'Pagination' });

export function dataOf<T extends ZodType>(schema: T) {
  return z.object({ data: schema });
}

export function listOf<T extends ZodType>(schema: T) {
  return z.object({ data: z.array(schema), meta: z.object({ pagination: Pagination }) });
}

/**
 * Route options for a hot route whose answers one mapper of its own builds: they are sent as built
 * (`JSON.stringify`), without zod's check of the response schema, which stays the route's OpenAPI
 * contract. A test should hold each answer to the schema (`answersMatch`).
 */
export const answerAsBuilt = {
  serializerCompiler: () => (data: unknown) => JSON.stringify(data),
} as const;

/**
 * Whether `body` is exactly what `schema` says: it parses, and parsing neither drops nor changes a
 * field (zod strips unknown keys, so a parse alone would let extra fields through).
 */
export function answersMatch(schema: ZodType, body: unknown): boolean {
  const parsed = schema.safeParse(body);
  return parsed.success && isDeepStrictEqual(parsed.data, body);
}

/** The error answers a route documents, beside its success answer. */
export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, ErrorBody]));
}

export const Timestamp = z.iso.datetime();
export const Money = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
/** ISO 4217: the currencies in use, and the funds, metals and testing codes (X..) the standard lists too. */
const ISO_4217 = new Set([...Intl.supportedValuesOf('currency'), 'XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XPD', 'XPT', 'XTS', 'XUA', 'XXX']);
const THREE_CAPITALS = /^[A-Z]{3}$/;

export const CurrencyCode = z
  .string()
  .regex(THREE_CAPITALS, 'must be an ISO 4217 code in capitals, e.g. USD')
  .refine((code) => !THREE_CAPITALS.test(code) || ISO_4217.has(code), { message: 'is not an ISO 4217 currency code' })
  .meta({ example: 'PEN' });

/** A 204 answer: no body. */
export const NoContent = z.null().meta({ description: 'No content' });
