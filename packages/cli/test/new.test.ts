import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import starter from '../../../starters/full-store/qhatu.config.js';
import { CATALOGUE } from '../src/scaffold/project/catalogue.js';
import { PROJECT_VITEST } from '../src/scaffold/project/scaffold.js';
import { cliEnv, freePort, runCli, spawnCli, stopLeftovers, waitUntilReady, WORKSPACE, type Finished } from './helpers.js';

// Projects are made outside the workspace, where a store of one's own would be.
let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'qhatu-new-'));
});
afterAll(async () => rm(root, { recursive: true, force: true }));
afterEach(() => stopLeftovers());

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: cliEnv({ NO_COLOR: '1', ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('qhatu new', { timeout: 60_000 }, () => {
  it('offers the plugins of the full-store starter, in its order, with their dependencies', () => {
    expect(CATALOGUE.map((p) => p.name)).toEqual(starter.plugins.map((p) => p.name));
    for (const plugin of starter.plugins) {
      expect(CATALOGUE.find((p) => p.name === plugin.name)!.dependsOn, plugin.name).toEqual(plugin.dependsOn ?? []);
    }
    expect(PROJECT_VITEST).toBe(readJson(path.join(WORKSPACE, 'package.json')).devDependencies.vitest);
  });

  it('writes a project with the plugins named and those they depend on, linked to a clone with --from', async () => {
    const dir = path.join(root, 'Corner Shop');
    const made = await runCli(['new', dir, '--from', WORKSPACE, '--plugins', 'reviews,blog', '--no-install'], { cwd: root });
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    expect(made.stdout).toContain('with 7 plugins: media, catalog, customers, inventory, orders, blog, reviews');
    expect(made.stdout).toContain('(catalog, customers, inventory, media, orders came in as dependencies');
    expect(made.stdout).toMatch(/cd Corner Shop\n {2}pnpm install\n {2}pnpm start .*\n {2}pnpm test /);
    for (const file of ['package.json', 'qhatu.config.ts', 'test/store.test.ts', 'vitest.config.ts', '.env.example', '.gitignore', 'README.md']) {
      expect(existsSync(path.join(dir, file)), file).toBe(true);
    }
    const pkg = readJson(path.join(dir, 'package.json'));
    expect(pkg.name).toBe('corner-shop');
    expect(pkg.scripts).toMatchObject({ start: 'qhatu start', test: 'vitest run' });
    expect(pkg.dependencies).toEqual({
      '@qhatu/cli': `link:${WORKSPACE}/packages/cli`,
      '@qhatu/core': `link:${WORKSPACE}/packages/core`,
      ...Object.fromEntries(['blog', 'catalog', 'customers', 'inventory', 'media', 'orders', 'reviews'].map((p) => [`@qhatu/plugin-${p}`, `link:${WORKSPACE}/packages/plugin-${p}`])),
    });
    const config = readFileSync(path.join(dir, 'qhatu.config.ts'), 'utf8');
    expect(config).toContain("import reviews from '@qhatu/plugin-reviews';");
    expect(config).not.toContain('plugin-checkout');
    expect(readFileSync(path.join(dir, 'test/store.test.ts'), 'utf8')).toContain('/api/v1/catalog/products');
  });

  it('asks the registry for the version of this CLI by default', async () => {
    const dir = path.join(root, 'registry');
    const made = await runCli(['new', dir, '--plugins', 'crm', '--no-install'], { cwd: root });
    expect(made.code).toBe(0);
    const { version } = readJson(path.join(WORKSPACE, 'packages/cli/package.json'));
    expect(readJson(path.join(dir, 'package.json')).dependencies).toEqual({ '@qhatu/cli': `^${version}`, '@qhatu/core': `^${version}`, '@qhatu/plugin-crm': `^${version}` });
    expect(readFileSync(path.join(dir, 'test/store.test.ts'), 'utf8')).not.toContain('/api/v1/catalog/products');
  });

  it.each([
    [['--plugins', 'catalog,loyalty'], 'error: unknown plugin: loyalty', '--plugins takes a comma-separated list of: media, catalog'],
    [['--from', '/nowhere'], 'error: --from /nowhere: no Qhatu packages there', '--from takes the root of a clone'],
    [['--from', '.', '--package-manager', 'npm'], 'error: --from needs --package-manager pnpm', 'workspace:*'],
    [['--package-manager', 'bun'], "error: option '--package-manager <name>' argument 'bun' is invalid", ''],
  ])('refuses %j and writes nothing', async (args, message, hint) => {
    const dir = path.join(root, `refused-${args.join('').replace(/\W/g, '')}`);
    const made = await runCli(['new', dir, ...args, '--no-install'], { cwd: WORKSPACE });
    expect(made.code).toBe(1);
    expect(made.stderr).toContain(message);
    expect(made.stderr).toContain(hint);
    expect(existsSync(dir)).toBe(false);
  });

  it('never writes into a folder that has files', async () => {
    const dir = path.join(root, 'taken');
    await mkdir(dir);
    await writeFile(path.join(dir, 'notes.txt'), 'mine');
    const made = await runCli(['new', dir, '--no-install'], { cwd: root });
    expect(made.code).toBe(1);
    expect(made.stderr).toContain('already exists and is not an empty folder; nothing was written');
    expect(existsSync(path.join(dir, 'package.json'))).toBe(false);
  });
});

describe('a project made by qhatu new --from this repository', { timeout: 240_000 }, () => {
  const dir = () => path.join(root, 'andean-crafts');
  let made: Finished;
  beforeAll(async () => {
    // pnpm takes vitest from its store (warm on a machine that installed this repository).
    made = await runCli(['new', 'andean-crafts', '--from', WORKSPACE], { cwd: root, env: { npm_config_prefer_offline: 'true' } });
  }, 240_000);

  it('is installed, and told how to start it and test it', () => {
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain(`with ${CATALOGUE.length} plugins`);
    expect(made.stdout).toMatch(/cd andean-crafts\n {2}pnpm start .*\n {2}pnpm test /);
    expect(existsSync(path.join(dir(), 'node_modules/.bin/qhatu'))).toBe(true);
    expect(existsSync(path.join(dir(), 'node_modules/@qhatu/plugin-b2b/package.json'))).toBe(true);
  });

  it('passes its own test', async () => {
    const tested = await run('pnpm', ['test'], dir());
    expect(tested.stdout + tested.stderr).toMatch(/Tests\s+3 passed \(3\)/);
    expect(tested.code).toBe(0);
  });

  it('starts with pnpm start and serves every plugin of the full store', async () => {
    const port = await freePort();
    // What `pnpm start` runs: the project's own qhatu (its node_modules/.bin shim points here).
    const running = spawnCli(['start'], { cwd: dir(), env: { PORT: String(port) }, cli: path.join(dir(), 'node_modules/@qhatu/cli/bin/qhatu.js') });
    const base = `http://127.0.0.1:${port}`;
    await waitUntilReady(`${base}/health/ready`, running);
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    for (const route of ['/api/v1/b2b/quotes', '/api/v1/crm/leads', '/api/v1/catalog/products']) expect(Object.keys(doc.paths)).toContain(route);
    running.child.kill('SIGTERM');
    expect((await running.exited).code).toBe(0);
  });
});
