import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

/**
 * Private PostgreSQL clusters for tests that need a server of their own: a primary made with
 * `initdb` and streaming replicas made from it with `pg_basebackup`, each on a port of its own,
 * in one temporary folder that `destroy` removes (the servers stopped first, also when the test
 * process exits without it). PostgreSQL refuses to run as root: as root, the servers run as the
 * `postgres` user.
 */
const BIN = process.env.PG_BIN ?? ['/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/17/bin'].find((dir) => existsSync(path.join(dir, 'initdb')));

export interface Cluster {
  name: string;
  port: number;
  dir: string;
  url: string;
}

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export class PostgresClusters {
  readonly root: string;
  private readonly running = new Set<Cluster>();
  private readonly owner?: { uid: number; gid: number };
  private readonly stopAtExit = () => this.stopAllNow();

  constructor() {
    if (!BIN) throw new Error('PostgreSQL server binaries not found (Debian: postgresql-15); set PG_BIN');
    this.root = mkdtempSync(path.join(tmpdir(), 'qhatu-clusters-'));
    if (process.getuid?.() === 0) {
      const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
      this.owner = { uid: id('-u'), gid: id('-g') };
      chownSync(this.root, this.owner.uid, this.owner.gid);
    }
    process.once('exit', this.stopAtExit);
  }

  /** A PostgreSQL program, as the server's user. */
  private run(program: string, args: string[]): string {
    const bin = path.join(BIN!, program);
    const [command, argv] = this.owner ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
    const result = spawnSync(command, argv, { encoding: 'utf8', timeout: 60_000 });
    if (result.status !== 0) throw new Error(`${program} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
    return result.stdout;
  }

  private async start(name: string, dir: string, port: number): Promise<Cluster> {
    const options = [
      `-p ${port}`,
      `-k ${this.root}`,
      '-c listen_addresses=127.0.0.1',
      // A test's data: nothing to keep after a crash.
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c max_connections=60',
      '-c shared_buffers=16MB',
      '-c hot_standby_feedback=on',
    ].join(' ');
    this.run('pg_ctl', ['-D', dir, '-o', options, '-l', path.join(this.root, `${name}.log`), '-w', '-t', '60', 'start']);
    const cluster = { name, port, dir, url: `postgres://postgres@127.0.0.1:${port}/postgres` };
    this.running.add(cluster);
    return cluster;
  }

  /** A new primary (trust authentication; replication connections allowed from 127.0.0.1, as `initdb` sets them). */
  async primary(name = 'primary'): Promise<Cluster> {
    const dir = path.join(this.root, name);
    this.run('initdb', ['-D', dir, '-U', 'postgres', '--auth=trust', '--no-sync', '--no-instructions']);
    return this.start(name, dir, await freePort());
  }

  /** A streaming replica of `primary`, copied with `pg_basebackup` and following it (`-R`). */
  async replica(primary: Cluster, name: string): Promise<Cluster> {
    const dir = path.join(this.root, name);
    this.run('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', dir, '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
    const cluster = await this.start(name, dir, await freePort());
    await this.waitForStandby(cluster);
    return cluster;
  }

  private async waitForStandby(cluster: Cluster): Promise<void> {
    const end = Date.now() + 30_000;
    for (;;) {
      const standby = await this.sql<{ standby: boolean }>(cluster, 'select pg_is_in_recovery() as standby').then((rows) => rows[0]?.standby, () => false);
      if (standby) return;
      if (Date.now() > end) throw new Error(`${cluster.name} is not a streaming standby`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** One statement on `cluster`, on a connection of its own. */
  async sql<R extends pg.QueryResultRow = Record<string, unknown>>(cluster: Cluster, text: string, params: unknown[] = []): Promise<R[]> {
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      return (await client.query<R>(text, params)).rows;
    } finally {
      await client.end();
    }
  }

  /** Waits until `replica` has replayed everything `primary` had written when this was called. */
  async caughtUp(primary: Cluster, replica: Cluster, ms = 20_000): Promise<void> {
    const [{ lsn }] = await this.sql<{ lsn: string }>(primary, 'select pg_current_wal_insert_lsn()::text as lsn');
    const end = Date.now() + ms;
    for (;;) {
      const [{ done }] = await this.sql<{ done: boolean }>(replica, 'select pg_last_wal_replay_lsn() >= $1::pg_lsn as done', [lsn]);
      if (done) return;
      if (Date.now() > end) throw new Error(`${replica.name} did not catch up with ${primary.name}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Stops `cluster` at once, as a crash would (`pg_ctl stop -m immediate`). */
  kill(cluster: Cluster): void {
    this.run('pg_ctl', ['-D', cluster.dir, '-m', 'immediate', '-w', 'stop']);
    this.running.delete(cluster);
  }

  private stopAllNow(): void {
    for (const cluster of [...this.running].reverse()) {
      try {
        this.kill(cluster);
      } catch {
        // Already gone.
      }
    }
  }

  /** Stops every server still running and removes the folder. */
  destroy(): void {
    this.stopAllNow();
    process.off('exit', this.stopAtExit);
    rmSync(this.root, { recursive: true, force: true });
  }
}
