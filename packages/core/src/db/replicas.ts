import pg from 'pg';
import type { Logger } from 'pino';
import { z } from 'zod';
import { parseEnvironment } from '../config.js';
import { TenantContext } from '../context.js';
import { isConnectionLost } from './retry.js';

/**
 * Read replicas (decision 0077): `DATABASE_REPLICA_URLS`, PostgreSQL streaming replicas of the
 * database, take the reads that may be a moment old (`Database.readMayLag`), round robin. A
 * replica takes a read only while it is up, no further behind than `DATABASE_REPLICA_MAX_LAG_MS`,
 * and past the last commit of the caller (read-your-writes); otherwise the primary does.
 */
export interface ReplicaSettings {
  urls: string[];
  /** How far behind the primary a replica may be, in time, and still take reads. */
  maxLagMs: number;
  /** How often each replica's position (and the primary's) is read. */
  checkMs: number;
}

const postgresUrl = z.string().trim().regex(/^postgres(ql)?:\/\/\S+$/, 'a postgres:// URL');

const ReplicaEnvironment = z.object({
  DATABASE_REPLICA_URLS: z
    .string()
    .transform((text) => text.split(',').map((url) => url.trim()).filter(Boolean))
    .pipe(z.array(postgresUrl).min(1))
    .optional(),
  DATABASE_REPLICA_MAX_LAG_MS: z.coerce.number().int().min(0).max(3_600_000).default(1000),
  DATABASE_REPLICA_CHECK_MS: z.coerce.number().int().min(10).max(60_000).default(250),
});

/** The replica settings of an environment; undefined without `DATABASE_REPLICA_URLS`. */
export function replicaSettings(env: Record<string, string | undefined>): ReplicaSettings | undefined {
  const e = parseEnvironment(env, ReplicaEnvironment);
  if (!e.DATABASE_REPLICA_URLS) return undefined;
  return { urls: e.DATABASE_REPLICA_URLS, maxLagMs: e.DATABASE_REPLICA_MAX_LAG_MS, checkMs: e.DATABASE_REPLICA_CHECK_MS };
}

/** A WAL position (`16/B374D848`) as a number that compares. */
export function lsnValue(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** The SQL that answers the primary's WAL position after a commit (`lsn`, text). */
export const COMMIT_LSN_SQL = 'select pg_current_wal_insert_lsn()::text as lsn';

/** Who reads their own writes: the caller (its principal) in the store, or the store for work of no caller (a job). */
export function callerKey(tenantId: string): string {
  const principal = TenantContext.principal();
  const who = principal?.id ?? principal?.tokenId;
  return who ? `${tenantId}:${who}` : tenantId;
}

export interface Replica {
  /** The URL without its password, for logs and metrics. */
  readonly name: string;
  readonly pool: pg.Pool;
}

interface ReplicaState extends Replica {
  up: boolean;
  /** Known to be a standby (a promoted or misconfigured server never takes reads). */
  standby: boolean;
  /** The position it has replayed, as of the last check (0 until the first). */
  replayed: bigint;
  /** How far behind the primary, as of the last check. */
  lagMs: number;
}

/** The primary's position over the last moments, to tell how long ago a replica fell behind. */
interface Sample {
  at: number;
  lsn: bigint;
}

export class Replicas {
  private readonly replicas: ReplicaState[];
  private readonly samples: Sample[] = [];
  /** Each caller's last commit: its reads go where that commit has been replayed. */
  private readonly commits = new Map<string, { lsn: bigint; at: number }>();
  private next = 0;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private checking?: Promise<void>;

  constructor(
    private readonly settings: ReplicaSettings,
    /** The primary's current WAL position (text). */
    private readonly primaryLsn: () => Promise<string>,
    private readonly logger: Logger,
    options: { poolMax: number; types?: unknown },
  ) {
    this.replicas = settings.urls.map((url) => {
      const pool = new pg.Pool({
        connectionString: url,
        max: options.poolMax,
        idleTimeoutMillis: 10_000,
        // A replica that does not answer is skipped, not waited for.
        connectionTimeoutMillis: Math.max(1000, settings.checkMs * 4),
        keepAlive: true,
        application_name: 'qhatu-replica-reads',
        ...(options.types ? { types: options.types as pg.CustomTypesConfig } : {}),
      });
      const state: ReplicaState = { name: withoutPassword(url), pool, up: false, standby: false, replayed: 0n, lagMs: Infinity };
      // A connection the replica drops is an 'error' event, in the pool or lent out: unheard, it would end the process.
      pool.on('error', (err) => this.failed(state, err));
      pool.on('connect', (client) => client.on('error', (err) => this.failed(state, err)));
      return state;
    });
  }

  /** Checks every replica now, then every `checkMs`; resolves after the first check. */
  start(): Promise<void> {
    const loop = async () => {
      await this.check();
      if (!this.closed) (this.timer = setTimeout(loop, this.settings.checkMs)).unref();
    };
    return (this.checking = loop());
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.checking?.catch(() => undefined);
    await Promise.all(this.replicas.map((r) => r.pool.end().catch(() => undefined)));
  }

  /**
   * The replica for a read of `caller` (see `callerKey`), round robin among those that are up, no
   * further behind than the set lag, and past the caller's last commit; undefined: the primary.
   */
  pick(caller: string): Replica | undefined {
    const commit = this.commits.get(caller);
    const n = this.replicas.length;
    for (let i = 0; i < n; i++) {
      const replica = this.replicas[(this.next + i) % n];
      if (!replica.up || !replica.standby || replica.lagMs > this.settings.maxLagMs) continue;
      if (commit && replica.replayed < commit.lsn) continue;
      this.next = (this.next + i + 1) % n;
      return replica;
    }
    return undefined;
  }

  /** Notes a commit of `caller` at `lsn`: its reads go to the primary until a replica has replayed it. */
  wrote(caller: string, lsn: string | undefined): void {
    if (!lsn) return;
    const value = lsnValue(lsn);
    const known = this.commits.get(caller);
    if (!known || known.lsn < value) this.commits.set(caller, { lsn: value, at: Date.now() });
  }

  /** A read on `replica` lost its connection: it takes no reads until a check finds it up again. */
  failed(replica: Replica, error: unknown): void {
    const state = replica as ReplicaState;
    if (!isConnectionLost(error) && !(error instanceof Error && /timeout/i.test(error.message))) return;
    if (state.up) this.logger.warn({ err: error, replica: state.name }, 'read replica down: its reads go to the primary');
    state.up = false;
  }

  /** Where each replica stands (metrics, tests). */
  status(): Array<{ name: string; up: boolean; lagMs: number; usable: boolean }> {
    return this.replicas.map((r) => ({ name: r.name, up: r.up, lagMs: r.lagMs, usable: r.up && r.standby && r.lagMs <= this.settings.maxLagMs }));
  }

  private async check(): Promise<void> {
    const now = Date.now();
    try {
      this.samples.push({ at: now, lsn: lsnValue(await this.primaryLsn()) });
    } catch (err) {
      // Without the primary's position no lag can be told: the replicas keep their last standing.
      this.logger.warn({ err }, 'primary position unknown for the replica check');
    }
    // What a replica within the lag must have replayed is older than the lag; older samples say nothing more.
    const horizon = now - this.settings.maxLagMs - 2 * this.settings.checkMs;
    while (this.samples.length > 1 && this.samples[1].at < horizon) this.samples.shift();
    for (const [caller, commit] of this.commits) if (commit.at < horizon) this.commits.delete(caller);
    await Promise.all(this.replicas.map((replica) => this.checkReplica(replica, now)));
  }

  private async checkReplica(replica: ReplicaState, now: number): Promise<void> {
    try {
      const { rows } = await replica.pool.query<{ standby: boolean; replayed: string | null }>(
        'select pg_is_in_recovery() as standby, pg_last_wal_replay_lsn()::text as replayed',
      );
      const [{ standby, replayed }] = rows;
      if (!standby && replica.standby !== standby) this.logger.error({ replica: replica.name }, 'read replica is not a standby: it takes no reads');
      if (!replica.up) this.logger.info({ replica: replica.name }, 'read replica up');
      replica.standby = standby;
      replica.up = true;
      replica.replayed = replayed ? lsnValue(replayed) : 0n;
      replica.lagMs = this.lagOf(replica.replayed, now);
    } catch (err) {
      this.failed(replica, err);
      replica.up = false;
    }
  }

  /** How long the primary has been ahead of `replayed`: since the oldest sample past it (0 if none is). */
  private lagOf(replayed: bigint, now: number): number {
    const ahead = this.samples.find((s) => s.lsn > replayed);
    if (!ahead) return 0;
    // Behind even the oldest sample kept: further than anything kept tells (further than the lag, once the samples span it).
    if (ahead === this.samples[0]) return Infinity;
    return now - ahead.at;
  }
}

function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.toString();
  } catch {
    return 'replica';
  }
}
