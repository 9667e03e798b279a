import { z } from 'zod';
import { parseEnvironment } from '../config.js';

const DirectEnvironment = z.object({
  DATABASE_DIRECT_URL: z.string().trim().regex(/^postgres(ql)?:\/\/\S+$/, 'a postgres:// URL').optional(),
});

/**
 * Where the work that needs a session of its own connects (decision 0078): `LISTEN` (the caches'
 * invalidations), the job queue's PostgreSQL backend (its `search_path` startup option, `LISTEN`
 * and session locks) and the migrator's lock. A pooler in transaction mode in front of PostgreSQL
 * (`DATABASE_URL`) keeps none of these, so `DATABASE_DIRECT_URL` names the server itself; unset,
 * `DATABASE_URL` is the server.
 */
export function directDatabaseUrl(env: Record<string, string | undefined>, databaseUrl: string): string {
  return parseEnvironment(env, DirectEnvironment).DATABASE_DIRECT_URL ?? databaseUrl;
}
