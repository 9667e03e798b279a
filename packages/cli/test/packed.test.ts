import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { compiledSnippets } from '../../core/test/docs-snippets.js';
import { CATALOGUE } from '../src/scaffold/project/catalogue.js';
import { cliEnv, freePort, spawnCli, stopLeftovers, waitUntilReady, WORKSPACE, type Finished } from './helpers.js';

// The packages as they are published: built, packed by `pnpm pack`, installed into folders outside
// the workspace (where nothing resolves back to its sources) and run with plain Node.
let root: string;
let tarballs: string;
let store: string;
let storeData: string;
let storeAdmin: Record<string, string>;
const installedCli = (dir: string) => path.join(dir, 'node_modules/@qhatu/cli/bin/qhatu.js');

/** Third-party packages come from pnpm's store, where installing this workspace put them. */
const offline = { npm_config_prefer_offline: 'true', TEST_DATABASE_URL: process.env.TEST_DATABASE_URL };

function run(command: string, args: string[], cwd: string, env: Record<string, string | undefined> = {}): Promise<Finished> {
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

async function succeed(command: string, args: string[], cwd: string, env: Record<string, string | undefined> = {}): Promise<Finished> {
  const done = await run(command, args, cwd, env);
  if (done.code !== 0) throw new Error(`${command} ${args.join(' ')} failed (${done.code}):\n${done.stdout}\n${done.stderr}`);
  return done;
}

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'qhatu-packed-'));
  tarballs = path.join(root, 'tarballs');
  // What `pnpm pack:all` does, into a folder of this test's own.
  await succeed('pnpm', ['build:packages'], WORKSPACE);
  await succeed('pnpm', ['-r', '--filter', './packages/*', 'pack', '--pack-destination', tarballs], WORKSPACE);
}, 240_000);
afterAll(async () => {
  stopLeftovers();
  if (root) await rm(root, { recursive: true, force: true });
});
afterEach(() => stopLeftovers());

/** How long a store's first start on a new data folder may take here (the embedded database made and migrated). */
const FIRST_START_MS = 180_000;

describe('the packed packages', { timeout: 360_000 }, () => {
  it('are one tarball per package, of compiled JavaScript with declarations', () => {
    const packages = readdirSync(path.join(WORKSPACE, 'packages')).filter((d) => existsSync(path.join(WORKSPACE, 'packages', d, 'package.json')));
    const version = readJson(path.join(WORKSPACE, 'packages/core/package.json')).version;
    expect(readdirSync(tarballs).sort()).toEqual(packages.map((d) => `qhatu-${d}-${version}.tgz`).sort());
  });

  it('start a store from an empty folder, with plain Node and no TypeScript loader', async () => {
    store = path.join(root, 'store');
    await mkdir(store);
    const files = Object.fromEntries(readdirSync(tarballs).map((f) => [`@qhatu/${/^qhatu-(.+)-\d+\.\d+\.\d+\.tgz$/.exec(f)![1]}`, `file:${path.join(tarballs, f)}`]));
    await writeFile(
      path.join(store, 'package.json'),
      JSON.stringify({ name: 'packed-store', private: true, type: 'module', dependencies: files, pnpm: { overrides: files, onlyBuiltDependencies: ['sharp'] } }, null, 2),
    );
    // A compiled project's file: JavaScript, every plugin of the full store.
    await writeFile(
      path.join(store, 'qhatu.config.js'),
      [
        `import { defineProject } from '@qhatu/core';`,
        ...CATALOGUE.map((p) => `import ${p.binding} from '${p.package}';`),
        `export default defineProject({ plugins: [${CATALOGUE.map((p) => p.expression).join(', ')}] });`,
      ].join('\n'),
    );
    await succeed('pnpm', ['install', '--prefer-offline'], store, offline);

    // Every package, as installed: its exports lead to compiled JavaScript and its declarations.
    for (const name of Object.keys(files)) {
      const dir = path.join(store, 'node_modules', name);
      const manifest = readJson(path.join(dir, 'package.json'));
      expect(manifest.engines, name).toEqual({ node: '>=20.19' });
      expect(JSON.stringify(manifest.dependencies ?? {}), name).not.toContain('workspace:');
      for (const [entry, target] of Object.entries(manifest.exports as Record<string, { types: string; default: string }>)) {
        expect(target.default, `${name} ${entry}`).toMatch(/^\.\/dist\/.+\.js$/);
        expect(existsSync(path.join(dir, target.default)), `${name} ${entry}`).toBe(true);
        expect(existsSync(path.join(dir, target.types)), `${name} ${entry}`).toBe(true);
      }
    }
    const core = path.join(store, 'node_modules/@qhatu/core');
    expect(existsSync(path.join(core, 'src'))).toBe(false);
    expect(readJson(path.join(core, 'package.json')).exports['./testing']).toEqual({ types: './dist/testing/index.d.ts', default: './dist/testing/index.js' });
    expect(existsSync(path.join(core, 'dist/testing/index.d.ts'))).toBe(true);
    // Nothing may need tsx: the one copy installed (the CLI's, for TypeScript project files) is taken away.
    const tsx = readdirSync(path.join(store, 'node_modules/.pnpm')).filter((d) => d.startsWith('tsx@'));
    expect(tsx).toHaveLength(1);
    await rename(path.join(store, 'node_modules/.pnpm', tsx[0]), path.join(store, 'node_modules/.pnpm', 'hidden-tsx'));
    const cliManifest = realpathSync(path.join(store, 'node_modules/@qhatu/cli/package.json'));
    const findTsx = await run(process.execPath, ['-e', "require('node:module').createRequire(process.argv[1]).resolve('tsx/esm/api')", cliManifest], store);
    expect(findTsx.code, 'tsx still resolves from the CLI').not.toBe(0);
    expect(findTsx.stderr).toContain("Cannot find module 'tsx/esm/api'");

    const client = await run(process.execPath, ['--input-type=module', '-e', "const { createQhatuClient } = await import('@qhatu/client'); console.log(typeof createQhatuClient)"], store);
    expect(client.stdout.trim(), client.stderr).toBe('function');

    const port = await freePort();
    const dataDir = (storeData = path.join(store, '.qhatu'));
    const running = spawnCli(['start'], { cwd: store, cli: installedCli(store), env: { PORT: String(port), QHATU_DATA_DIR: dataDir } });
    const base = `http://127.0.0.1:${port}`;
    // Its first start makes the embedded database and migrates every plugin's tables, beside the other test files.
    await waitUntilReady(`${base}/health/ready`, running, FIRST_START_MS);
    const platform = readFileSync(path.join(dataDir, 'platform-token'), 'utf8').trim();
    const post = async (url: string, body: unknown, headers: Record<string, string>) => {
      const res = await fetch(`${base}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      expect(res.status, await res.clone().text()).toBe(201);
      return ((await res.json()) as { data: Record<string, string> }).data;
    };
    const tenant = await post('/api/v1/tenants', { name: 'Andean Crafts', currency: 'PEN' }, { authorization: `Bearer ${platform}` });
    const key = await post(`/api/v1/tenants/${tenant.id}/api-keys`, { name: 'Back office', scope: 'admin' }, { authorization: `Bearer ${platform}` });
    const admin = (storeAdmin = { authorization: `Bearer ${key.token}`, 'x-tenant-id': tenant.id });
    await post('/api/v1/catalog/products', { title: 'Alpaca scarf', status: 'active', variants: [{ title: 'Grey', sku: 'SCARF-GREY', price: 8900 }] }, admin);
    const list = await fetch(`${base}/api/v1/catalog/products`, { headers: admin });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { data: Array<{ title: string }> }).data.map((p) => p.title)).toEqual(['Alpaca scarf']);
    // The GraphQL playground's assets come from the installed graphiql and react packages.
    expect((await fetch(`${base}/graphql/assets/graphiql.min.js`)).status).toBe(200);

    running.child.kill('SIGTERM');
    const exited = await running.exited;
    expect(exited.code, exited.stderr).toBe(0);
  });

  it("run a built clone's compiled packages with plain Node (what `pnpm build && pnpm start` does)", async () => {
    const port = await freePort();
    const dataDir = await mkdtemp(path.join(root, 'clone-data-'));
    // Without the tests' --conditions=qhatu-source: as a person's shell starts it.
    const running = spawnCli(['start', '--config', 'starters/full-store/qhatu.config.ts'], {
      cwd: WORKSPACE,
      env: { PORT: String(port), QHATU_DATA_DIR: dataDir, NODE_OPTIONS: undefined },
    });
    // A new data folder: the embedded database is made and every plugin's tables migrated first.
    await waitUntilReady(`http://127.0.0.1:${port}/health/ready`, running, FIRST_START_MS);
    expect(running.stdout()).toContain('Code            compiled packages (dist/)');
    expect((await fetch(`http://127.0.0.1:${port}/openapi.json`)).status).toBe(200);
    running.child.kill('SIGTERM');
    const exited = await running.exited;
    expect(exited.code, exited.stderr).toBe(0);
  });

  it('make a project with qhatu new --from <folder> whose own test passes and that starts', async () => {
    expect(store, 'the store above installed the CLI this runs').toBeDefined();
    const made = await run(process.execPath, [installedCli(store), 'new', 'andean-crafts', '--from', tarballs], root, offline);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain(`with ${CATALOGUE.length} plugins`);
    expect(made.stdout).toMatch(/cd andean-crafts\n {2}pnpm start .*\n {2}pnpm test /);
    const dir = path.join(root, 'andean-crafts');
    const pkg = readJson(path.join(dir, 'package.json'));
    expect(pkg.dependencies['@qhatu/core']).toBe(`file:${path.join(tarballs, readdirSync(tarballs).find((f) => f.startsWith('qhatu-core-'))!)}`);
    expect(readJson(path.join(dir, 'node_modules/@qhatu/plugin-b2b/package.json')).main).toBe('./dist/index.js');

    const tested = await run('pnpm', ['test'], dir, offline);
    expect(tested.stdout + tested.stderr).toMatch(/Tests\s+3 passed \(3\)/);
    expect(tested.code).toBe(0);

    // `pnpm start`: the project's qhatu.config.ts, loaded through the CLI's tsx; on the data the
    // store above left (the same plugins, so already migrated).
    const port = await freePort();
    const running = spawnCli(['start'], { cwd: dir, cli: installedCli(dir), env: { PORT: String(port), QHATU_DATA_DIR: storeData } });
    const base = `http://127.0.0.1:${port}`;
    await waitUntilReady(`${base}/health/ready`, running);
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    for (const route of ['/api/v1/b2b/quotes', '/api/v1/crm/leads', '/api/v1/catalog/products']) expect(Object.keys(doc.paths)).toContain(route);
    const list = await fetch(`${base}/api/v1/catalog/products`, { headers: storeAdmin });
    expect(((await list.json()) as { data: Array<{ title: string }> }).data.map((p) => p.title)).toEqual(['Alpaca scarf']);
    running.child.kill('SIGTERM');
    expect((await running.exited).code).toBe(0);
  });

  it('give a store\'s tests the gateway kits, which need no test runner to build a store around a gateway', async () => {
    expect(store, 'the store above installed the packages').toBeDefined();
    // The store above installed no vitest: the kit's app, callers and doubles load and run without it.
    expect(existsSync(path.join(store, 'node_modules/vitest'))).toBe(false);
    const script = `
      const { caller, configureGateway, gatewayApp, GATEWAYS } = await import('@qhatu/plugin-payments/testing');
      const { StripeDouble } = await import('@qhatu/plugin-gateway-stripe/testing');
      const stripe = (await import('@qhatu/plugin-gateway-stripe')).default;
      const double = await new StripeDouble(new Set(['sk_test_packed'])).start();
      const t = await gatewayApp(stripe, 'QHATU_GATEWAY_STRIPE_BASE_URL', double.url, { workers: true });
      try {
        const admin = caller(t, await t.createTenant({ currency: 'PEN' }));
        await configureGateway(admin, 'stripe', { secret_key: 'sk_test_packed', publishable_key: 'pk_test_packed', webhook_secret: 'whsec_packed' });
        const listed = (await admin('GET', GATEWAYS)).json().data.map((g) => [g.id, g.configured]);
        await t.settle();
        console.log(JSON.stringify(listed));
      } finally {
        await t.close();
        await double.close();
      }
    `;
    const used = await run(process.execPath, ['--input-type=module', '-e', script], store, { ...offline, LOG_LEVEL: 'silent' });
    expect(used.code, used.stderr).toBe(0);
    expect(JSON.parse(used.stdout)).toEqual([['stripe', true]]);
  });

  it('walk a developer’s path outside the repository: a plugin and a gateway of their own, type-checked, tested, migrated and served on PostgreSQL', async () => {
    const dir = path.join(root, 'andean-crafts');
    expect(existsSync(dir), 'the project above').toBe(true);
    const cli = installedCli(dir);
    const qhatu = (args: string[], env: Record<string, string | undefined> = {}) => run(process.execPath, [cli, ...args], dir, { ...offline, ...env });
    for (const name of ['gift-wrap', 'pay-later', 'loyalty']) {
      const made = await qhatu(['plugin', 'new', name]);
      expect(made.code, made.stdout + made.stderr).toBe(0);
    }
    // What the developer writes: an order custom field, a GraphQL field, a subscriber queueing a
    // job and a permission on the scaffold's entity and routes; and an instalments gateway.
    const outside = path.join(path.dirname(fileURLToPath(import.meta.url)), 'outside');
    await cp(path.join(outside, 'plugin-gift-wrap'), path.join(dir, 'packages/plugin-gift-wrap'), { recursive: true });
    await rm(path.join(dir, 'packages/plugin-pay-later/src'), { recursive: true });
    await cp(path.join(outside, 'plugin-pay-later'), path.join(dir, 'packages/plugin-pay-later'), { recursive: true });
    const edit = async (file: string, change: (text: string) => string) => writeFile(path.join(dir, file), change(await readFile(path.join(dir, file), 'utf8')));
    const project = readJson(path.join(dir, 'package.json'));
    const needs = { 'plugin-gift-wrap': '@qhatu/plugin-orders', 'plugin-pay-later': '@qhatu/plugin-payments' };
    for (const [folder, dependency] of Object.entries(needs)) {
      await edit(`packages/${folder}/package.json`, (text) => {
        const pkg = JSON.parse(text);
        pkg.dependencies[dependency] = project.dependencies[dependency];
        return JSON.stringify(pkg, null, 2);
      });
    }
    // The gift-wrap plugin now needs orders: its scaffolded test starts the whole store.
    await edit('packages/plugin-gift-wrap/test/gift-wrap.test.ts', (text) =>
      text.replace("import giftWrapPlugin from '../src/index.js';", "import project from '../../../qhatu.config.js';").replace('plugins: [giftWrapPlugin]', 'plugins: project.plugins'),
    );
    await edit('package.json', (text) => {
      const pkg = JSON.parse(text);
      Object.assign(pkg.dependencies, { '@qhatu/plugin-gift-wrap': 'workspace:*', '@qhatu/plugin-pay-later': 'workspace:*' });
      return JSON.stringify(pkg, null, 2);
    });
    await edit('qhatu.config.ts', (text) =>
      `import giftWrap from '@qhatu/plugin-gift-wrap';\nimport payLater from '@qhatu/plugin-pay-later';\n${text.replace('  ],\n});', '    giftWrap,\n    payLater,\n  ],\n});')}`,
    );
    // docs/plugins.md's compiled snippets are the files of its example plugin, loyalty: written over
    // the scaffold's, with the dependencies the docs say it takes (tsyringe at core's exact version),
    // and type-checked with the project against the packed packages (their tests named so that only
    // the compiler runs them).
    const example = path.join(dir, 'packages/plugin-loyalty');
    await rm(path.join(example, 'src'), { recursive: true });
    await rm(path.join(example, 'test'), { recursive: true });
    const snippets = compiledSnippets(readFileSync(path.join(WORKSPACE, 'docs/plugins.md'), 'utf8'), example);
    expect(snippets.length).toBeGreaterThanOrEqual(8);
    for (const snippet of snippets) {
      const file = snippet.file.replace(/\.test\.ts$/, '.snippet.ts');
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, snippet.code);
    }
    const core = readJson(path.join(dir, 'node_modules/@qhatu/core/package.json'));
    await edit('packages/plugin-loyalty/package.json', (text) => {
      const pkg = JSON.parse(text);
      pkg.dependencies.tsyringe = core.dependencies.tsyringe;
      return JSON.stringify(pkg, null, 2);
    });
    await succeed('pnpm', ['install', '--prefer-offline'], dir, offline);

    // On PostgreSQL in development: a database of its own, migrated; then an entity change becomes a migration.
    const server = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
    await server.connect();
    const database = `qhatu_outside_${process.pid}_${Date.now()}`;
    await server.query(`CREATE DATABASE ${database}`);
    try {
      const url = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
      url.pathname = `/${database}`;
      const env = { DATABASE_URL: url.toString(), QHATU_ENV: 'development', QHATU_DATA_DIR: path.join(dir, '.qhatu-pg') };
      const migrated = await qhatu(['migrate'], env);
      expect(migrated.code, migrated.stdout + migrated.stderr).toBe(0);
      await edit('packages/plugin-gift-wrap/src/entities/gift-wrap-item.ts', (text) => text.replace('    description: p.string().nullable(),', '    description: p.string().nullable(),\n    ribbon: p.string().nullable(),'));
      const generated = await qhatu(['migration', 'generate', 'gift-wrap'], env);
      expect(generated.code, generated.stdout + generated.stderr).toBe(0);
      expect(generated.stdout).toContain('ribbon');
      const again = await qhatu(['migrate'], env);
      expect(again.code, again.stdout + again.stderr).toBe(0);

      const typecheck = await run('pnpm', ['typecheck'], dir, offline);
      expect(typecheck.code, typecheck.stdout + typecheck.stderr).toBe(0);
      const tested = await run('pnpm', ['test'], dir, offline);
      expect(tested.code, tested.stdout + tested.stderr).toBe(0);
      expect(tested.stdout).toMatch(/packages\/plugin-gift-wrap\/test\/outside\.test\.ts/);
      expect(tested.stdout).toMatch(/packages\/plugin-pay-later\/test\/pay-later\.test\.ts/);

      const port = await freePort();
      const running = spawnCli(['start'], { cwd: dir, cli, env: { ...env, PORT: String(port) } });
      const base = `http://127.0.0.1:${port}`;
      await waitUntilReady(`${base}/health/ready`, running);
      const doc = await fetch(`${base}/openapi.json`);
      expect(doc.status).toBe(200);
      const paths = Object.keys(((await doc.json()) as { paths: Record<string, unknown> }).paths);
      expect(paths).toEqual(expect.arrayContaining(['/api/v1/gift-wrap/items', '/api/v1/gift-wrap/items/{id}']));
      expect((await fetch(`${base}/docs`)).status).toBe(200);
      running.child.kill('SIGTERM');
      expect((await running.exited).code).toBe(0);
    } finally {
      await server.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await server.end();
    }
  });
});
