import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

const NUL = '\u0000';
const NOT_STORABLE = 'must not contain the NUL character (U+0000)';

/**
 * Where the first NUL character is in a request's parameters, query or JSON body, as a path
 * (`body.variants.0.title`), or null. PostgreSQL stores no NUL in text or jsonb, so such a value
 * is refused before anything runs rather than failing half-way at the database.
 */
export function nulAt(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string') return value.includes(NUL) ? path : null;
  if (value === null || typeof value !== 'object' || depth > 64) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulAt(value[i], `${path}.${i}`, depth + 1);
      if (found) return found;
    }
    return null;
  }
  // Parsed JSON and query strings only: a raw body (a stream, a buffer) is its route's to read.
  if (ArrayBuffer.isView(value) || typeof (value as { pipe?: unknown }).pipe === 'function') return null;
  for (const key of Object.keys(value)) {
    if (key.includes(NUL)) return path;
    const found = nulAt((value as Record<string, unknown>)[key], `${path}.${key}`, depth + 1);
    if (found) return found;
  }
  return null;
}

/** Refuses, with the route's validation code, a request carrying a NUL character anywhere it is read from. */
export function refuseNulCharacters(api: FastifyInstance): void {
  api.addHook('preValidation', async (request) => {
    const parts = [['params', request.params], ['querystring', request.query], ['body', request.body]] as const;
    for (const [where, value] of parts) {
      const path = nulAt(value, where);
      if (!path) continue;
      const code = request.routeOptions.config?.errorCodes?.[where] ?? 'VALIDATION_ERROR';
      throw new AppError(400, code, `${path}: ${NOT_STORABLE}`, [{ path, message: NOT_STORABLE }]);
    }
  });
}
