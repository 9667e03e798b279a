import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import type { Jobs } from '../jobs/jobs.js';

/**
 * `/health/live` and `/health/ready` (the database, and a job queue with work waiting and none
 * running): on the API port, and on the metrics port of a process that has one (workers).
 */
export function healthRoutes(http: FastifyInstance, db: Database, jobs: Jobs, queueStallMs: number): void {
  http.get('/health/live', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  http.get('/health/ready', { schema: { hide: true } }, async (_req, reply) => {
    const checks: Record<string, string> = {};
    await db.query('select 1').then(() => (checks.database = 'ok'), () => (checks.database = 'down'));
    // Jobs that wait with none running (no worker, or a stuck one) make the service unready: paid orders would wait.
    const stall = await jobs.stall(queueStallMs).then(
      (found) => ((checks.queue = found ? 'stalled' : 'ok'), found),
      () => void (checks.queue = 'down'),
    );
    const ready = Object.values(checks).every((c) => c === 'ok');
    const stalled = stall && {
      queue: { name: stall.queue, waiting: stall.waiting, active: 0, stalled_seconds: stall.seconds },
      message: `${stall.waiting} job(s) have waited in the queue "${stall.queue}" for ${stall.seconds} s with none running`,
    };
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', checks, ...stalled });
  });
}
