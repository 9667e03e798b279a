import { AppError } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import { nestsDeeperThan } from '../schemas/settings.js';
import { refuseReservedKeys } from '../services/storefront-settings.js';

/** As deep as core lets any JSON body nest. */
const MAX_JSON_DEPTH = 64;

/**
 * JSON bodies of the theme routes are read as core reads them (no body when empty, at most 64
 * levels), except that `__proto__` and `constructor.prototype` stay plain keys (JSON.parse never
 * sets a prototype) instead of failing as "not valid JSON": every theme route then refuses a
 * reserved key by name, with 422 THEME_SETTING_KEY_RESERVED and its path, before validation
 * (which would drop `__proto__` without a word).
 */
export function refuseReservedKeysByName(scope: FastifyInstance): void {
  const parse = scope.getDefaultJsonParser('ignore', 'ignore');
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (/^\s*$/.test(body as string)) return done(null, undefined);
    parse(request, body as string, (error, value) => {
      if (error) return done(error, undefined);
      if (nestsDeeperThan(value, MAX_JSON_DEPTH)) {
        return done(new AppError(400, 'VALIDATION_ERROR', `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`, [{ path: 'body', message: 'is nested too deeply' }]), undefined);
      }
      done(null, value);
    });
  });
  // Routes that take no body ignore what is sent, as before.
  scope.addHook('preValidation', async (request) => {
    if (request.routeOptions.schema?.body) refuseReservedKeys(request.body);
  });
}
