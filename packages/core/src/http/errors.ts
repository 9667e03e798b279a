import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isConnectionLost, isSerializationFailure, outcomeUnknown } from '../db/retry.js';
import { AppError, isAppError, type ErrorDetail } from '../errors.js';

/** Seconds a client is asked to wait before sending a request answered 503 again. */
export const RETRY_AFTER_SECONDS = 1;

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  if (error.status === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  return reply
    .code(error.status)
    .type('application/json')
    .send({ error: { code: error.code, message: error.message, details: error.details } });
}

const PG_CODES: Record<string, () => AppError> = {
  '23505': () => AppError.conflict('A record with these unique values already exists'),
  '23503': () => AppError.unprocessable('REFERENCE_NOT_FOUND', 'A referenced record does not exist'),
  '22P02': () => AppError.validation('A value has the wrong format'),
  '22007': () => AppError.validation('A date or time has the wrong format'),
  '22008': () => AppError.validation('A date or time is out of range'),
  '22003': () => AppError.validation('A number is out of range'),
  '22001': () => AppError.validation('A value is too long'),
  '42501': () => AppError.forbidden('This record belongs to another tenant'),
  // A NUL character (U+0000), which PostgreSQL stores in no text or jsonb.
  '22021': () => AppError.validation('A text contains a character that cannot be stored (U+0000)'),
  '22P05': () => AppError.validation('A text contains a character that cannot be stored (U+0000)'),
};

/**
 * A lost connection or a serialization failure the transaction could not be run again after
 * (decision 0051): 503, the same request may be sent again in a moment; never a 500.
 */
export function unavailableError(error: unknown): AppError | null {
  if (outcomeUnknown(error)) {
    return new AppError(503, 'SERVICE_UNAVAILABLE', 'The connection to the database was lost while the change was being committed: it may have been applied; check before sending it again');
  }
  if (isSerializationFailure(error)) return new AppError(503, 'SERVICE_UNAVAILABLE', 'A concurrent change got in the way and nothing was changed; send the request again');
  if (isConnectionLost(error)) return new AppError(503, 'SERVICE_UNAVAILABLE', 'The connection to the database was lost before anything was saved; send the request again');
  return null;
}

/** What a PostgreSQL error means for the client (a unique value, a bad reference, a NUL, a lost connection), or null. */
export function databaseError(error: unknown): AppError | null {
  const unavailable = unavailableError(error);
  if (unavailable) return unavailable;
  const e = error as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = e?.code ?? e?.cause?.code;
  const pg = typeof code === 'string' && Object.hasOwn(PG_CODES, code) ? PG_CODES[code] : undefined;
  return pg ? pg() : null;
}

/** Turns anything thrown into the contract's error body; nothing else ever leaves. */
export function toAppError(error: unknown, request?: FastifyRequest): AppError {
  if (isAppError(error)) return error;
  const e = error as FastifyError & { validationContext?: string; cause?: unknown };
  if (hasZodFastifySchemaValidationErrors(e) || e.validation) {
    const where = e.validationContext ?? 'body';
    const code = request?.routeOptions.config?.errorCodes?.[where as 'body'] ?? 'VALIDATION_ERROR';
    if (where === 'body' && request?.body == null) {
      return new AppError(400, code, 'This operation needs a JSON body', [{ path: 'body', message: 'is required' }]);
    }
    const details: ErrorDetail[] = (e.validation ?? []).map((v) => {
      const field = (v.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.');
      const name = (v.params as { missingProperty?: string } | undefined)?.missingProperty;
      return { path: [where, field || name].filter(Boolean).join('.'), message: v.message ?? 'is not valid' };
    });
    const first = details[0];
    return new AppError(400, code, first ? `${first.path}: ${first.message}` : `The ${where} is not valid`, details);
  }
  // A route's API may name its own code for a bad body (checkout's INVALID_REQUEST).
  const bodyCode = request?.routeOptions.config?.errorCodes?.body ?? 'VALIDATION_ERROR';
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(413, 'PAYLOAD_TOO_LARGE', 'The request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError(400, bodyCode, 'The JSON body is empty', [{ path: 'body', message: 'is required' }]);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError(400, bodyCode, 'The body is not valid JSON', [{ path: 'body', message: e.message }]);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return AppError.validation('The Content-Length header does not match the body');
  }
  if (error instanceof SyntaxError && e.statusCode === 400) {
    return new AppError(400, bodyCode, 'The body is not valid JSON', [{ path: 'body', message: e.message }]);
  }
  const pg = databaseError(error);
  if (pg) return pg;
  if (e.statusCode === 429) return new AppError(429, 'RATE_LIMITED', 'Too many requests');
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    return new AppError(e.statusCode, 'BAD_REQUEST', e.message);
  }
  return new AppError(500, 'INTERNAL_ERROR', 'An unexpected error occurred');
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error, request);
    // A 503 is the database out of reach for a moment (decision 0051): a warning, not a fault of the code.
    if (appError.status === 503) request.log.warn({ err: error }, 'request answered 503');
    else if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(reply, appError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new AppError(404, 'NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`)),
  );
}
