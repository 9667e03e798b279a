import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { createApp, definePlugin, loadConfig, Tenants, type QhatuApp } from '@qhatu/core';
import { adminUrl, createTestDatabase, urlFor } from '@qhatu/core/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, platformToken, runCli, spawnCli, stopLeftovers, tempProject, waitUntil, waitUntilReady, type TempProject } from './helpers.js';

// The project's one plugin has a job that leaves a file behind: proof that `qhatu worker` ran it.
const PROJECT = `import { writeFileSync } from 'node:fs';
import { definePlugin, defineProject } from '@qhatu/core';

const touch = definePlugin({ name: 'touch', jobs: { 'touch.file': (data: { file: string }) => writeFileSync(data.file, 'done') } });
export default defineProject({ plugins: [touch] });
`;
// The same job on this side, to queue it from the test; this app never runs workers.
const touchHere = definePlugin({ name: 'touch', jobs: { 'touch.file': () => Promise.reject(new Error('must run in the worker')) } });

const token = platformToken();
let project: TempProject;
let app: QhatuApp;
let migrated: { url: string; drop(): Promise<void> };
let empty: { url: string; drop(): Promise<void> };
let behind: { url: string; drop(): Promise<void> };

async function admin<T>(work: (client: pg.Client) => Promise<T>, url = adminUrl()): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
const query = <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => admin(async (c) => (await c.query<R>(sql, params)).rows, migrated.url);

/** A database with nothing in it; named like the test databases (creation time included), so that only a later run drops it. */
async function emptyDatabase() {
  const name = `qhatu_test_${Math.floor(Date.now() / 1000)}_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`create database ${name}`));
  return { url: urlFor(name), drop: () => admin(async (c) => void (await c.query(`drop database if exists ${name} with (force)`))) };
}

const run = (args: string[], databaseUrl = migrated.url) =>
  runCli(args, { cwd: project.dir, env: { DATABASE_URL: databaseUrl, QHATU_PLATFORM_TOKEN: token } });

beforeAll(async () => {
  [project, migrated, empty, behind] = await Promise.all([tempProject(PROJECT), createTestDatabase([]), emptyDatabase(), emptyDatabase()]);
  const config = loadConfig({ DATABASE_URL: migrated.url, QHATU_PLATFORM_TOKEN: token, QHATU_ENV: 'development', LOG_LEVEL: 'silent', DATABASE_POOL_MAX: '2' });
  app = await createApp({ plugins: [touchHere], config });
});
afterAll(async () => {
  stopLeftovers();
  await app?.close();
  await Promise.all([project?.remove(), migrated?.drop(), empty?.drop(), behind?.drop()]);
});

// The commands run as separate processes, so the cases run side by side.
// Generous: with every case running at once on a small machine, each process waits for CPU.
describe.concurrent('the CLI on a PostgreSQL database', { timeout: 240_000 }, () => {
  describe('qhatu migrate', () => {
    it('refuses to work on a database that is behind', async () => {
      const early = await run(['tenants', 'create', '--name', 'Too Early'], behind.url);
      expect(early.code).toBe(1);
      expect(early.stderr).toContain('the database is not up to date: 11 migration(s) pending (core/0001_tenancy, core/0002_staff, core/0003_search, core/0004_fact_versions, core/0005_idempotency_caller, ...)');
      expect(early.stderr).toContain('run `qhatu migrate` first');
    });

    it("runs no plugin's onReady on a database that is behind: the full store says what is pending, not a raw SQL error", async () => {
      const fullStore = new URL('../../../starters/full-store/qhatu.config.ts', import.meta.url).pathname;
      for (const args of [['tenants', 'create', '--name', 'Too Early'], ['start']]) {
        const early = await run([...args, '--config', fullStore], behind.url);
        expect(early.code, early.stderr).toBe(1);
        expect(early.stderr).toMatch(/the database is not up to date: \d+ migration\(s\) pending \(core\/0001_tenancy/);
        expect(early.stderr).toContain('run `qhatu migrate` first');
        expect(early.stderr).not.toContain('does not exist');
      }
    });

    it('applies what is pending, then has nothing to apply', async () => {
      const first = await run(['migrate'], empty.url);
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toContain('applied core/0001_tenancy');
      expect(first.stdout).toContain('applied core/0002_staff');
      expect(first.stdout).toContain('applied core/0003_search');
      expect(first.stdout).toContain('applied core/0004_fact_versions');
      expect(first.stdout).toContain('applied core/0005_idempotency_caller');
      expect(first.stdout).toContain('applied core/0006_rate_limits');
      expect(first.stdout).toContain('applied core/0007_idempotency_tenant');
      expect(first.stdout).toContain('applied core/0008_search_pages');
      expect(first.stdout).toContain('applied core/0009_locales');
      expect(first.stdout).toContain('applied core/0010_markets');
      expect(first.stdout).toContain('applied core/0011_mail_texts');
      expect(first.stdout).toContain('Applied 11 migration(s).');
      const ledger = await admin(async (c) => (await c.query('select plugin, id from qhatu_migrations order by id')).rows, empty.url);
      expect(ledger).toEqual([{ plugin: 'core', id: '0001_tenancy' }, { plugin: 'core', id: '0002_staff' }, { plugin: 'core', id: '0003_search' }, { plugin: 'core', id: '0004_fact_versions' }, { plugin: 'core', id: '0005_idempotency_caller' }, { plugin: 'core', id: '0006_rate_limits' }, { plugin: 'core', id: '0007_idempotency_tenant' }, { plugin: 'core', id: '0008_search_pages' }, { plugin: 'core', id: '0009_locales' }, { plugin: 'core', id: '0010_markets' }, { plugin: 'core', id: '0011_mail_texts' }]);

      const again = await run(['migrate'], empty.url);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('Nothing to apply: the database is up to date.');
    });
  });

  describe('qhatu migrate behind a pooler', () => {
    it('migrates through DATABASE_DIRECT_URL, the server itself, when DATABASE_URL is a pooler', async () => {
      const direct = await emptyDatabase();
      try {
        // A pooler in transaction mode keeps no session for the migrator's lock: here, one nobody answers on.
        const done = await runCli(['migrate'], { cwd: project.dir, env: { DATABASE_URL: 'postgres://app@127.0.0.1:1/pooled', DATABASE_DIRECT_URL: direct.url, QHATU_PLATFORM_TOKEN: token } });
        expect(done.code, done.stderr).toBe(0);
        expect(done.stdout).toMatch(new RegExp(`Migrating postgres(ql)?://\\S+/${new URL(direct.url).pathname.slice(1)}\\b`));
        expect(done.stdout).toContain('Applied 11 migration(s).');
      } finally {
        await direct.drop();
      }
    });
  });

  describe('qhatu tenants create and qhatu api-keys create', () => {
    it('creates a store, prints it, and stores it', async () => {
      const created = await run(['tenants', 'create', '--name', 'Café Andino', '--currency', 'PEN', '--locale', 'es-PE']);
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      expect(created.stdout).toContain('Created the store "Café Andino" (slug cafe-andino');
      const json = created.stdout.slice(created.stdout.indexOf('{'), created.stdout.indexOf('}') + 1);
      const tenant = JSON.parse(json);
      expect(tenant).toMatchObject({ name: 'Café Andino', slug: 'cafe-andino', status: 'active', currency: 'PEN', default_locale: 'es-PE' });
      expect(created.stdout).toContain(`qhatu api-keys create --tenant ${tenant.id}`);

      const rows = await query('select name, slug, currency, default_locale from core_tenant where id = $1', [tenant.id]);
      expect(rows).toEqual([{ name: 'Café Andino', slug: 'cafe-andino', currency: 'PEN', default_locale: 'es-PE' }]);
    });

    it('prints only JSON with --json, and refuses a taken slug', async () => {
      const created = await run(['tenants', 'create', '--name', 'Lima Shop', '--slug', 'lima', '--json']);
      expect(created.code).toBe(0);
      expect(JSON.parse(created.stdout)).toMatchObject({ name: 'Lima Shop', slug: 'lima', currency: 'USD', default_locale: 'en' });

      const taken = await run(['tenants', 'create', '--name', 'Other', '--slug', 'lima']);
      expect(taken.code).toBe(1);
      expect(taken.stderr).toContain('error: The slug "lima" is taken');
      expect(taken.stderr).toContain('--slug: is taken');
    });

    it('issues API keys whose printed token authenticates', async () => {
      const tenant = await app.container.resolve(Tenants).create({ name: 'Key Shop' });
      const issued = await run(['api-keys', 'create', '--tenant', tenant.id, '--name', 'Back office', '--scope', 'admin', '--json']);
      expect(issued.stderr).toBe('');
      expect(issued.code).toBe(0);
      const key = JSON.parse(issued.stdout);
      expect(key).toMatchObject({ tenant_id: tenant.id, name: 'Back office', scope: 'admin', expires_at: null });
      expect(key.token).toMatch(/^qha_/);

      const stored = await query('select kind, name from core_access_token where token_hash = $1 and tenant_id = $2', [
        createHash('sha256').update(key.token).digest('hex'),
        tenant.id,
      ]);
      expect(stored).toEqual([{ kind: 'admin', name: 'Back office' }]);

      const asked = await app.http.inject({
        method: 'POST',
        url: '/graphql',
        headers: { authorization: `Bearer ${key.token}`, 'x-tenant-id': tenant.id },
        payload: { query: '{ apiVersion }' },
      });
      expect(asked.json()).toEqual({ data: { apiVersion: 'v1' } });
      const forged = await app.http.inject({
        method: 'POST',
        url: '/graphql',
        headers: { authorization: `Bearer ${key.token.slice(0, -1)}${key.token.endsWith('x') ? 'y' : 'x'}`, 'x-tenant-id': tenant.id },
        payload: { query: '{ apiVersion }' },
      });
      expect(forged.json().errors[0].extensions.code).toBe('UNAUTHENTICATED');
    });

    it('issues an expiring storefront key, shows its token once in human output, and refuses an unknown store', async () => {
      const tenant = await app.container.resolve(Tenants).create({ name: 'Front Shop' });
      const issued = await run(['api-keys', 'create', '--tenant', tenant.id, '--name', 'Shop front', '--scope', 'storefront', '--expires-at', '2099-01-31T00:00:00Z']);
      expect(issued.code).toBe(0);
      expect(issued.stdout).toContain('The token is shown only now');
      const token = /"token": "(qhs_[^"]+)"/.exec(issued.stdout)?.[1];
      expect(token).toBeDefined();
      expect(issued.stdout).toContain(`-H "Authorization: Bearer ${token}" -H "X-Tenant-ID: ${tenant.id}"`);
      const [row] = await query<{ expires_at: Date }>('select expires_at from core_access_token where tenant_id = $1', [tenant.id]);
      expect(row.expires_at.toISOString()).toBe('2099-01-31T00:00:00.000Z');

      const unknown = await run(['api-keys', 'create', '--tenant', '3f2b8c1e-8f4a-4a0e-9c1d-2b7e5d6a9f01', '--name', 'X', '--scope', 'admin']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('error: Tenant not found');
    });
  });

  describe('qhatu staff create', () => {
    it("adds a store's first owner, who signs in with the password from QHATU_STAFF_PASSWORD", async () => {
      const tenant = await app.container.resolve(Tenants).create({ name: 'Staff Shop' });
      const created = await runCli(['staff', 'create', '--tenant', tenant.id, '--email', 'Rosa@Example.com', '--role', 'owner', '--first-name', 'Rosa', '--json'], {
        cwd: project.dir,
        env: { DATABASE_URL: migrated.url, QHATU_PLATFORM_TOKEN: token, QHATU_STAFF_PASSWORD: 'a long enough secret' },
      });
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      const member = JSON.parse(created.stdout);
      expect(member).toMatchObject({ tenant_id: tenant.id, email: 'rosa@example.com', first_name: 'Rosa', status: 'active' });
      expect(created.stdout).not.toContain('a long enough secret');
      const session = await app.http.inject({ method: 'POST', url: '/api/v1/auth/staff/login', headers: { 'x-tenant-id': tenant.id }, payload: { email: 'rosa@example.com', password: 'a long enough secret' } });
      expect(session.statusCode).toBe(200);
      const me = await app.http.inject({ method: 'GET', url: '/api/v1/staff/me', headers: { authorization: `Bearer ${session.json().data.token}`, 'x-tenant-id': tenant.id } });
      expect(me.json().data.role).toMatchObject({ name: 'owner', built_in: true });
    });

    it('invites by e-mail without a password, with a link on the store\'s own address and the API call that accepts it', async () => {
      const tenant = await app.container.resolve(Tenants).create({ name: 'Invite Shop' });
      const invited = await runCli(['staff', 'create', '--tenant', tenant.id, '--email', 'ana@example.com', '--role', 'admin'], {
        cwd: project.dir,
        env: { DATABASE_URL: migrated.url, QHATU_PLATFORM_TOKEN: token, PORT: '4123' },
      });
      expect(invited.stderr).toBe('');
      expect(invited.code).toBe(0);
      const folder = path.join(project.dir, '.qhatu', 'mail', tenant.id);
      expect(invited.stdout).toContain(`An invitation was e-mailed to ana@example.com (no SMTP_URL: written to ${folder}).`);
      expect(invited.stdout).toContain('Its single-use link opens http://127.0.0.1:4123/staff/password?tenant=…&token=…&purpose=invite');
      expect(invited.stdout).toContain('Qhatu serves no page there');
      const mail = readdirSync(folder);
      expect(mail).toHaveLength(1);
      const message = readFileSync(path.join(folder, mail[0]), 'utf8').replace(/=\r?\n/g, '').replaceAll('=3D', '=');
      const link = /http:\/\/127\.0\.0\.1:4123\/staff\/password\?tenant=([0-9a-f-]+)&token=([\w-]+)&purpose=invite/.exec(message);
      expect(link?.[1]).toBe(tenant.id);

      // The printed call, with the link's token, sets the password and signs the member in.
      const call = /curl -X POST (\S+) -H "X-Tenant-ID: (\S+)" -H 'Content-Type: application\/json' -d '(.+)'/.exec(invited.stdout);
      expect(call?.[1]).toBe('http://127.0.0.1:4123/api/v1/auth/staff/password');
      const body = JSON.parse(call![3].replace('<token from the link>', link![2]).replace('<8 characters or more>', 'a long enough secret'));
      const accepted = await app.http.inject({ method: 'POST', url: new URL(call![1]).pathname, headers: { 'x-tenant-id': call![2] }, payload: body });
      expect(accepted.statusCode, accepted.body).toBe(200);
      expect(accepted.json().data.staff.email).toBe('ana@example.com');
      expect(accepted.json().data.token).toMatch(/^qhm_/);
    });

    it('refuses an unknown role, store or short password', async () => {
      const tenant = await app.container.resolve(Tenants).create({ name: 'Refusing Shop' });
      const noRole = await run(['staff', 'create', '--tenant', tenant.id, '--email', 'x@example.com', '--role', 'cashier']);
      expect(noRole.code).toBe(1);
      expect(noRole.stderr).toContain('error: The store has no role named "cashier"');
      const noStore = await run(['staff', 'create', '--tenant', '3f2b8c1e-8f4a-4a0e-9c1d-2b7e5d6a9f01', '--email', 'x@example.com', '--role', 'owner']);
      expect(noStore.stderr).toContain('error: Tenant not found');
      const short = await runCli(['staff', 'create', '--tenant', tenant.id, '--email', 'x@example.com', '--role', 'owner'], {
        cwd: project.dir,
        env: { DATABASE_URL: migrated.url, QHATU_PLATFORM_TOKEN: token, QHATU_STAFF_PASSWORD: 'short' },
      });
      expect(short.code).toBe(1);
      expect(short.stderr).toContain('QHATU_STAFF_PASSWORD: must be at least 8 characters');
    });
  });

  describe('qhatu start', () => {
    it('serves the API until SIGTERM, then exits 0', async () => {
      const port = await freePort();
      const server = spawnCli(['start', '--workers'], {
        cwd: project.dir,
        env: { DATABASE_URL: migrated.url, QHATU_PLATFORM_TOKEN: token, PORT: String(port) },
      });
      try {
        const base = `http://127.0.0.1:${port}`;
        await waitUntilReady(`${base}/health/ready`, server);
        const banner = server.stdout();
        expect(banner).toContain(`Qhatu is listening on ${base}`);
        expect(banner).toContain(`API docs        ${base}/docs`);
        expect(banner).toContain('Workers         running in this process');
        expect(banner).toContain(`Health          ${base}/health/live, ${base}/health/ready`);
        expect(banner).toContain(`Metrics         ${base}/metrics (bearer the platform token, or set QHATU_METRICS_TOKEN)`);
        expect(banner).toContain('Platform token  from QHATU_PLATFORM_TOKEN');
        expect(banner).not.toContain(token);
        expect(banner).toContain(`curl -X POST ${base}/api/v1/tenants -H "Authorization: Bearer $QHATU_PLATFORM_TOKEN"`);

        const created = await fetch(`${base}/api/v1/tenants`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Served Shop' }),
        });
        expect(created.status).toBe(201);
        expect((await fetch(`${base}/openapi.json`)).status).toBe(200);
      } finally {
        server.child.kill('SIGTERM');
      }
      const { code, stderr } = await server.exited;
      expect(stderr).toContain('SIGTERM received: shutting down');
      expect(code).toBe(0);
    });
  });

  describe('qhatu worker', () => {
    it('runs the jobs the store queues, without HTTP, until SIGTERM', async () => {
      const worker = spawnCli(['worker'], { cwd: project.dir, env: { DATABASE_URL: migrated.url, QHATU_PLATFORM_TOKEN: token } });
      try {
        await waitUntil(() => worker.stdout().includes('Qhatu worker running'), worker);
        expect(worker.stdout()).toContain('Health          no port: set QHATU_METRICS_PORT to answer /health/live, /health/ready and /metrics');
        const file = path.join(project.dir, `touched-${randomBytes(3).toString('hex')}`);
        await app.jobs.add('touch.file', { file });
        await waitUntil(() => existsSync(file), worker);
        expect(readFileSync(file, 'utf8')).toBe('done');
      } finally {
        worker.child.kill('SIGTERM');
      }
      const { code, stderr } = await worker.exited;
      expect(stderr).toContain('SIGTERM received: shutting down');
      expect(code).toBe(0);
    });

    it('answers the health checks and /metrics on its metrics port, and says where its traces go', async () => {
      const collector = await otlpCollector();
      const port = await freePort();
      const worker = spawnCli(['worker'], {
        cwd: project.dir,
        env: { DATABASE_URL: migrated.url, QHATU_PLATFORM_TOKEN: token, QHATU_METRICS_PORT: String(port), OTEL_EXPORTER_OTLP_ENDPOINT: collector.url },
      });
      try {
        const at = `http://127.0.0.1:${port}`;
        await waitUntilReady(`${at}/health/ready`, worker);
        expect(worker.stdout()).toContain(`Health          ${at}/health/live, ${at}/health/ready`);
        expect(worker.stdout()).toContain(`Metrics         ${at}/metrics (no token: keep the port private)`);
        expect(worker.stdout()).toContain(`Traces          ${collector.url}/v1/traces (OTLP/HTTP)`);
        const live = await fetch(`${at}/health/live`);
        expect(await live.json()).toEqual({ status: 'ok' });
        const ready = await fetch(`${at}/health/ready`);
        expect(await ready.json()).toMatchObject({ status: 'ok', checks: { database: 'ok', queue: 'ok' } });
        expect(await (await fetch(`${at}/metrics`)).text()).toContain('qhatu_jobs_total');
      } finally {
        worker.child.kill('SIGTERM');
      }
      expect((await worker.exited).code).toBe(0);
      await collector.close();
    });
  });

  describe('QHATU_ENV with DATABASE_URL', () => {
    it('development: a generated platform token, printed and kept in the data folder, and the workers in qhatu start', async () => {
      const port = await freePort();
      const dataDir = path.join(project.dir, `dev-${randomBytes(3).toString('hex')}`);
      const server = spawnCli(['start'], { cwd: project.dir, env: { DATABASE_URL: migrated.url, QHATU_ENV: 'development', QHATU_DATA_DIR: dataDir, PORT: String(port) } });
      try {
        const base = `http://127.0.0.1:${port}`;
        await waitUntilReady(`${base}/health/ready`, server);
        const generated = readFileSync(path.join(dataDir, 'platform-token'), 'utf8').trim();
        const banner = server.stdout();
        expect(banner).toContain(`Platform token  ${generated}  (kept in ${path.join(dataDir, 'platform-token')})`);
        expect(banner).toContain('Workers         running in this process');
        expect(banner).toContain(`Metrics         ${base}/metrics (bearer the platform token, or set QHATU_METRICS_TOKEN)`);
        expect(banner).toContain('Traces          off (set OTEL_EXPORTER_OTLP_ENDPOINT)');
        const created = await fetch(`${base}/api/v1/tenants`, {
          method: 'POST',
          headers: { authorization: `Bearer ${generated}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Dev Shop' }),
        });
        expect(created.status).toBe(201);
        const file = path.join(project.dir, `touched-${randomBytes(3).toString('hex')}`);
        await app.jobs.add('touch.file', { file });
        await waitUntil(() => existsSync(file), server);
      } finally {
        server.child.kill('SIGTERM');
      }
      expect((await server.exited).code).toBe(0);
    });

    it('production (the default, or said): no command runs without QHATU_PLATFORM_TOKEN', async () => {
      for (const env of [{ QHATU_ENV: undefined }, { QHATU_ENV: 'production' }]) {
        for (const args of [['start'], ['migrate'], ['worker']]) {
          const refused = await runCli(args, { cwd: project.dir, env: { DATABASE_URL: migrated.url, ...env } });
          expect(refused.code, args.join(' ')).toBe(1);
          expect(refused.stderr).toContain('error: the environment is not a valid configuration:\n  QHATU_PLATFORM_TOKEN: required when QHATU_ENV is production');
        }
      }
    });
  });
});

/** An OTLP/HTTP endpoint that takes whatever it is sent. */
async function otlpCollector(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
