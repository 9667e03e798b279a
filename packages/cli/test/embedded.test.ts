import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runCli, spawnCli, stopLeftovers, tempProject, waitUntilReady, type TempProject } from './helpers.js';

// No DATABASE_URL and no platform token: what someone trying Qhatu for the first time runs.
let project: TempProject;
let dataDir: string;
const env = () => ({ QHATU_DATA_DIR: dataDir, QHATU_ENV: undefined });

beforeAll(async () => {
  project = await tempProject();
  dataDir = path.join(project.dir, 'data');
});
afterAll(async () => {
  stopLeftovers();
  await project?.remove();
});

describe('the embedded database', { timeout: 120_000 }, () => {
  it('is migrated by qhatu migrate', async () => {
    const run = await runCli(['migrate'], { cwd: project.dir, env: env() });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Migrating the embedded database in ${dataDir}`);
    expect(run.stdout).toContain('applied core/0001_tenancy');
    expect(existsSync(path.join(dataDir, 'pgdata'))).toBe(true);
    expect(existsSync(path.join(dataDir, 'qhatu.lock'))).toBe(false);
  });

  it('serves a store that the printed token and curl can bootstrap, and lets other commands work beside it', async () => {
    const port = await freePort();
    const server = spawnCli(['start'], { cwd: project.dir, env: { ...env(), PORT: String(port) } });
    try {
      const base = `http://127.0.0.1:${port}`;
      await waitUntilReady(`${base}/health/ready`, server);
      const banner = server.stdout();
      const token = readFileSync(path.join(dataDir, 'platform-token'), 'utf8').trim();
      expect(banner).toContain(`Platform token  ${token}`);
      expect(banner).toContain(`Data            ${dataDir} (embedded PostgreSQL)`);
      // The tests run a clone's sources (--conditions=qhatu-source); the banner says which code runs.
      expect(banner).toContain('Code            TypeScript sources through tsx (started with --conditions=qhatu-source;');
      expect(banner).toContain('Workers         running in this process');
      expect(banner).toContain(`API docs        ${base}/docs`);
      expect(banner).toContain(`Metrics         ${base}/metrics (bearer the platform token, or set QHATU_METRICS_TOKEN)`);
      expect(banner).toContain('Traces          off (set OTEL_EXPORTER_OTLP_ENDPOINT)');

      // Run the printed curl's request: it creates a store as is.
      const curl = /curl -X POST (\S+) -H "Authorization: Bearer (\S+)" -H 'Content-Type: application\/json' -d '(.+)'/.exec(banner);
      expect(curl).not.toBeNull();
      const [, url, bearer, body] = curl!;
      expect(url).toBe(`${base}/api/v1/tenants`);
      const created = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body });
      expect(created.status).toBe(201);
      expect(((await created.json()) as { data: { name: string } }).data.name).toBe('My Store');

      // Other commands work beside it, on the database it serves (not on its files).
      const meanwhile = await runCli(['tenants', 'create', '--name', 'Second', '--json'], { cwd: project.dir, env: env() });
      expect(meanwhile.stderr).toBe('');
      expect(meanwhile.code).toBe(0);
      const second = JSON.parse(meanwhile.stdout) as { id: string };
      const key = await runCli(['api-keys', 'create', '--tenant', second.id, '--name', 'Back office', '--scope', 'admin', '--json'], { cwd: project.dir, env: env() });
      expect(key.code).toBe(0);
      const { token: adminKey } = JSON.parse(key.stdout) as { token: string };
      const seen = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminKey}`, 'x-tenant-id': second.id, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ apiVersion }' }),
      });
      expect(await seen.json()).toEqual({ data: { apiVersion: 'v1' } });

      // Its links name the running store's address (this command has no PORT of its own), and the printed call accepts them.
      const invited = await runCli(['staff', 'create', '--tenant', second.id, '--email', 'rosa@example.com', '--role', 'owner'], { cwd: project.dir, env: env() });
      expect(invited.stderr).toBe('');
      expect(invited.stdout).toContain(`Its single-use link opens ${base}/staff/password?tenant=…&token=…&purpose=invite`);
      const folder = path.join(dataDir, 'mail', second.id);
      const message = readFileSync(path.join(folder, readdirSync(folder)[0]), 'utf8').replace(/=\r?\n/g, '').replaceAll('=3D', '=');
      const linkToken = new RegExp(`${base}/staff/password\\?tenant=${second.id}&token=([\\w-]+)&purpose=invite`).exec(message)?.[1];
      expect(linkToken).toBeDefined();
      const call = /curl -X POST (\S+) -H "X-Tenant-ID: (\S+)" -H 'Content-Type: application\/json' -d '(.+)'/.exec(invited.stdout)!;
      expect(call[1]).toBe(`${base}/api/v1/auth/staff/password`);
      const accepted = await fetch(call[1], {
        method: 'POST',
        headers: { 'x-tenant-id': call[2], 'content-type': 'application/json' },
        body: call[3].replace('<token from the link>', linkToken!).replace('<8 characters or more>', 'a long enough secret'),
      });
      expect(accepted.status).toBe(200);

      // qhatu migrate works beside it too, through the database it serves.
      const migrated = await runCli(['migrate'], { cwd: project.dir, env: env() });
      expect(migrated.stderr).toBe('');
      expect(migrated.stdout).toContain(`Migrating the embedded database of the running store (${dataDir})`);
      expect(migrated.stdout).toContain('Nothing to apply: the database is up to date.');
    } finally {
      server.child.kill('SIGINT');
    }
    const { code, stderr } = await server.exited;
    expect(stderr).toContain('SIGINT received: shutting down');
    expect(code).toBe(0);
    expect(existsSync(path.join(dataDir, 'qhatu.lock'))).toBe(false);
  });
});
