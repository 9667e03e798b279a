import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, isAppError, type ErrorDetail } from '../errors.js';

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  return reply
    .code(error.status)
    .type('application/json')
    .send({ error: { code: error.code, message: error.message, details: error.details } });
}

const PG_CODES: Record<string, () => AppError> = {
  '23505': () => AppError.conflict('A record with these unique values already exists'),
  '23503': () => AppError.unprocessable('REFERENCE_NOT_FOUND', 'A referenced record does not exist'),
  '22P02': () => AppError.validation('A value has the wrong format'),
  '22003': () => AppError.validation('A number is out of range'),
  '22001': () => AppError.validation('A value is too long'),
  '42501': () => AppError.forbidden('This record belongs to another tenant'),
  // A NUL character (U+0000), which PostgreSQL stores in no text or jsonb.
  '22021': () => AppError.validation('A text contains a character that cannot be stored (U+0000)'),
  '22P05': () => AppError.validation('A text contains a character that cannot be stored (U+0000)'),
  // Two transactions waited on each other or overlapped: nothing was written; the same request may be sent again.
  '40P01': () => AppError.conflict('A concurrent change got in the way; retry the request', 'CONCURRENT_UPDATE'),
  '40001': () => AppError.conflict('A concurrent change got in the way; retry the request', 'CONCURRENT_UPDATE'),
};

/** What a PostgreSQL error the client caused (a unique value, a bad reference, a NUL) means, or null. */
export function databaseError(error: unknown): AppError | null {
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
    if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(reply, appError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new AppError(404, 'NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`)),
  );
}
