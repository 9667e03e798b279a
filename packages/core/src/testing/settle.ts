import type { QhatuApp } from '../app.js';
import { Database } from '../db/database.js';

/** What an app still has to do: jobs waiting or running (every process's), and committed events not yet handed to their subscribers. */
interface Backlog {
  waiting: number;
  running: number;
  events: number;
}

async function backlog(app: QhatuApp): Promise<Backlog> {
  const counts = await app.jobs.counts();
  const [row] = await app.container.resolve(Database).query<{ n: number }>('select count(*)::int as n from core_outbox where published_at is null');
  return { waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0), running: counts.active ?? 0, events: row.n };
}

const isEmpty = (b: Backlog) => b.waiting === 0 && b.running === 0 && b.events === 0;

const describe = (b: Backlog) =>
  [`${b.waiting} job(s) waiting`, `${b.running} running`, `${b.events} committed event(s) not yet dispatched`].join(', ');

/** How often the backlog is read, and how many reads in a row must find it empty. */
const POLL_MS = 20;
const QUIET_READS = 2;

/**
 * Keeps the failed job attempts of `app`'s workers, for `settle`'s message; returns the waiting
 * function. Settled means: every committed event handed to its subscribers (and the jobs they
 * queue), and no job waiting or running, seen on two reads in a row (a job that finishes between
 * the two reads of one look cannot hide the work it queued). Delayed jobs (a `delayMs`, or a
 * failed attempt waiting for its retry) are not waited for.
 */
export function settler(app: QhatuApp): (options?: { timeoutMs?: number }) => Promise<void> {
  const failed = new Map<string, number>();
  app.jobs.onRun((name, outcome) => {
    if (outcome === 'failed') failed.set(name, (failed.get(name) ?? 0) + 1);
  });
  return async ({ timeoutMs = 15_000 } = {}) => {
    const end = Date.now() + timeoutMs;
    failed.clear();
    let quiet = 0;
    for (;;) {
      const left = await backlog(app);
      quiet = isEmpty(left) ? quiet + 1 : 0;
      if (quiet >= QUIET_READS) return;
      if (Date.now() >= end) {
        const hints = [
          failed.size ? `failed attempts meanwhile: ${[...failed].map(([name, n]) => `${name} (${n})`).join(', ')}` : '',
          app.jobs.working ? '' : 'this app runs no job workers: createTestApp({ workers: true })',
        ].filter(Boolean);
        throw new Error(`not settled after ${timeoutMs} ms: ${describe(left)}${hints.length ? `; ${hints.join('; ')}` : ''}`);
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  };
}
