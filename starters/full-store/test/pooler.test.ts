import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminUrl } from '@qhatu/core/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './postgres-clusters.js';

/**
 * The hot paths behind a connection pooler (decision 0078, docs/scale-out.md): PgBouncer (Debian's
 * package) in transaction mode in front of the test server, and the test suites of the hot paths
 * (catalog reads, cart, checkout to a placed order, payment notification, refund) run again with
 * every test app connected through it (`TEST_POOLER_URL`: `DATABASE_URL` through the pooler,
 * `DATABASE_PREPARE=off`, `DATABASE_DIRECT_URL` for the session work). They must all pass, the
 * pooler must have carried their transactions, and it must have refused nothing nor dropped a
 * notification (a `LISTEN` sent through it).
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer'].find((bin) => spawnSync(bin, ['--version']).status === 0);
const HOT_PATHS = [
  'packages/plugin-catalog/test/products.test.ts',
  'packages/plugin-checkout/test/carts.test.ts',
  'packages/plugin-checkout/test/checkouts.test.ts',
  'packages/plugin-checkout/test/orders.test.ts',
  'packages/plugin-checkout/test/stock.test.ts',
  'packages/plugin-gateway-stripe/test/notifications.test.ts',
  'packages/plugin-gateway-stripe/test/full-path.test.ts',
  'packages/plugin-payments/test/returns.test.ts',
];

let dir: string;
let pooler: ChildProcess | undefined;
let poolerUrl: string;
let log = '';

beforeAll(async () => {
  if (!PGBOUNCER) throw new Error('pgbouncer is not installed (Debian: apt-get install pgbouncer); .ci/run installs it');
  dir = await mkdtemp(path.join(tmpdir(), 'qhatu-pooler-'));
  const server = new URL(adminUrl());
  const port = await freePort();
  await writeFile(path.join(dir, 'users.txt'), `"${decodeURIComponent(server.username || 'postgres')}" "${decodeURIComponent(server.password)}"\n`);
  await writeFile(
    path.join(dir, 'pgbouncer.ini'),
    `[databases]
* = host=${server.hostname} port=${server.port || 5432}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${dir}/users.txt
admin_users = ${decodeURIComponent(server.username || 'postgres')}
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 20
log_connections = 0
log_disconnections = 0
`,
  );
  // PgBouncer refuses to run as root: as root it switches to the postgres user.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
    for (const file of ['', 'users.txt', 'pgbouncer.ini']) await chown(path.join(dir, file), id('-u'), id('-g'));
  }
  pooler = spawn(PGBOUNCER, [...(asRoot ? ['-u', 'postgres'] : []), path.join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (chunk: Buffer) => (log += chunk.toString());
  pooler.stdout!.on('data', keep);
  pooler.stderr!.on('data', keep);
  const through = new URL(adminUrl());
  through.host = `127.0.0.1:${port}`;
  poolerUrl = through.toString();
  const end = Date.now() + 15_000;
  for (;;) {
    const up = await query(poolerUrl, 'select 1').then(() => true, () => false);
    if (up) break;
    if (pooler.exitCode !== null || Date.now() > end) throw new Error(`pgbouncer did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
});

afterAll(async () => {
  if (pooler && pooler.exitCode === null) {
    const exited = new Promise((r) => pooler!.once('exit', r));
    pooler.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function query<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}

/** The hot paths' suites in a vitest of their own, with `env`: its exit code and the tail of its output. */
function runSuites(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--maxWorkers=2', '--minWorkers=1', ...HOT_PATHS], {
      cwd: root,
      env: { ...process.env, ...env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('the hot paths through PgBouncer in transaction mode', () => {
  it('pass whole, every app on the pooler, nothing refused and no notification lost', async () => {
    const { code, output } = await runSuites({ TEST_POOLER_URL: poolerUrl });
    expect(code, output).toBe(0);
    expect(output).toMatch(new RegExp(`Test Files\\s+${HOT_PATHS.length} passed`));

    // The apps' transactions went through the pooler, into the test databases.
    const stats = await query<{ database: string; total_xact_count: string }>(new URL('/pgbouncer', poolerUrl).toString(), 'SHOW STATS');
    const carried = stats.filter((row) => row.database.startsWith('qhatu_test_')).reduce((sum, row) => sum + Number(row.total_xact_count), 0);
    expect(carried).toBeGreaterThan(1000);
    // A client refused (a startup option such as the job queue's search_path), or a NOTIFY reaching a
    // server connection no client holds (a LISTEN sent through the pooler), would show here.
    expect(log).not.toMatch(/unsupported startup parameter|pooler error/);
    expect(log).not.toMatch(/got packet 'A' from server when not linked/);
  }, 1_200_000);
});
