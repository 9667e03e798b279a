import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { TenantContext, type Principal } from '../context.js';
import type { Secrets } from '../auth/secrets.js';
import type { Database } from '../db/database.js';
import { AppError } from '../errors.js';
import { sendError } from './errors.js';

const WINDOW_HOURS = 24;
/** A claim whose answer was never recorded (its process died, its database connection was lost) is free again after this. */
const CLAIM_MINUTES = 5;
/** Where the platform's own requests (no store) keep their keys. */
const PLATFORM_SCOPE = '00000000-0000-0000-0000-000000000000';

interface StoredAnswer {
  request_hash: string;
  status_code: number | null;
  response_body: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: { tenantId: string; caller: string; key: string };
  }
}

/**
 * `Idempotency-Key` on POST: a repeat with the same key and body within 24 h gets the first
 * answer again without the work being done twice; the same key with another body is a 409.
 * Keys belong to the caller (the token's principal): another caller's same key is another request.
 */
export function installIdempotency(app: FastifyInstance, db: Database, secrets: Secrets): void {
  app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST') return;
    const raw = request.headers['idempotency-key'];
    const key = Array.isArray(raw) ? raw[0] : raw;
    if (key === undefined) return;
    if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
      throw AppError.validation('Idempotency-Key must be 1 to 255 visible ASCII characters', [
        { path: 'headers.idempotency-key', message: 'is not valid' },
      ]);
    }
    const context = TenantContext.current();
    // The store's keys are filed under its id; the platform's requests under the nil UUID.
    const tenantId = context?.tenantId ?? PLATFORM_SCOPE;
    const caller = callerOf(context?.principal);
    const hash = createHash('sha256')
      .update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`)
      .digest('hex');
    const claimed = await db.query(
      `with expired as (
         delete from core_idempotency_key
          where tenant_id = ? and caller = ? and key = ?
            and (created_at < now() - make_interval(hours => ${WINDOW_HOURS})
                 or (status_code is null and created_at < now() - make_interval(mins => ${CLAIM_MINUTES}))))
       insert into core_idempotency_key (tenant_id, caller, key, request_hash) values (?, ?, ?, ?)
       on conflict (tenant_id, caller, key) do nothing returning key`,
      [tenantId, caller, key, tenantId, caller, key, hash],
    );
    if (claimed.length > 0) {
      request.idempotency = { tenantId, caller, key };
      return;
    }
    const [stored] = await db.query<StoredAnswer>(
      'select request_hash, status_code, response_body from core_idempotency_key where tenant_id = ? and caller = ? and key = ?',
      [tenantId, caller, key],
    );
    if (!stored) throw AppError.conflict('This Idempotency-Key is being reused; retry', 'IDEMPOTENCY_KEY_IN_USE');
    if (stored.request_hash !== hash) {
      return sendError(
        reply,
        AppError.conflict('This Idempotency-Key was used with another request', 'IDEMPOTENCY_KEY_REUSED'),
      );
    }
    if (stored.status_code === null) {
      return sendError(
        reply,
        AppError.conflict('A request with this Idempotency-Key is still being processed', 'IDEMPOTENCY_KEY_IN_USE'),
      );
    }
    reply.header('idempotent-replayed', 'true');
    // Stored sealed: a first answer may carry a token or a secret shown only once.
    return reply.code(stored.status_code).type('application/json').send(stored.response_body ? secrets.open(stored.response_body) : '');
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotency;
    if (!claim) return payload;
    try {
      if (reply.statusCode >= 500) {
        await db.query('delete from core_idempotency_key where tenant_id = ? and caller = ? and key = ?', [claim.tenantId, claim.caller, claim.key]);
      } else {
        await db.query(
          'update core_idempotency_key set status_code = ?, response_body = ? where tenant_id = ? and caller = ? and key = ?',
          [reply.statusCode, typeof payload === 'string' ? secrets.seal(payload) : '', claim.tenantId, claim.caller, claim.key],
        );
      }
    } catch (error) {
      // The answer stands: the work is done (or refused). A claim left unanswered is taken over after CLAIM_MINUTES.
      request.log.warn({ err: error, key: claim.key }, 'idempotency answer not recorded');
    }
    return payload;
  });
}

/** Who owns a key: the staff member, customer or vendor behind the token, or the API key itself; '' for a caller without a token. */
function callerOf(principal: Principal | undefined): string {
  if (!principal) return '';
  return `${principal.kind}:${principal.id ?? ''}`;
}
