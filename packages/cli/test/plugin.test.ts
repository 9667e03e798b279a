import { spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createTestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_DIR, cliEnv, linkPluginDependencies, runCli, tempProject, WORKSPACE, type Finished, type TempProject } from './helpers.js';

const CORE_DIR = path.join(WORKSPACE, 'packages/core');
const FILES = [
  'package.json',
  'README.md',
  'src/index.ts',
  'src/entities/demo-item.ts',
  'src/schemas/demo-item.ts',
  'src/services/demo-items.ts',
  'src/routes/items.ts',
  'src/migrations/index.ts',
  'src/migrations/0001_items.ts',
  'test/demo.test.ts',
];

let tmp: TempProject;
let pluginDir: string;
let created: Finished;

beforeAll(async () => {
  tmp = await tempProject('');
  pluginDir = path.join(tmp.dir, 'plugin-demo');
  created = await runCli(['plugin', 'new', 'demo', '--dir', pluginDir], { cwd: tmp.dir });
});
afterAll(async () => tmp?.remove());

const read = (file: string) => readFileSync(path.join(pluginDir, file), 'utf8');

function runNode(args: string[], cwd: string): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: cliEnv({ NO_COLOR: '1' }) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.concurrent('qhatu plugin new', { timeout: 60_000 }, () => {
  it('writes a plugin package in the layout of STYLE.md and says what to do next', () => {
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('Created @qhatu/plugin-demo in plugin-demo');
    for (const file of FILES) {
      expect(existsSync(path.join(pluginDir, file)), file).toBe(true);
      expect(created.stdout).toContain(`  ${file}`);
    }
    for (const step of ['pnpm-workspace.yaml', 'pnpm install', 'qhatu.config.ts', "import demo from '@qhatu/plugin-demo'", 'pnpm qhatu migrate', 'pnpm qhatu migration generate demo']) {
      expect(created.stdout).toContain(step);
    }
  });

  it('pins the dependency versions core is built with', () => {
    const pkg = JSON.parse(read('package.json'));
    const core = JSON.parse(readFileSync(path.join(CORE_DIR, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({ name: '@qhatu/plugin-demo', type: 'module', main: './src/index.ts', exports: { '.': './src/index.ts' } });
    expect(pkg.dependencies).toEqual({
      '@qhatu/core': 'workspace:*',
      '@mikro-orm/core': core.dependencies['@mikro-orm/core'],
      'fastify-type-provider-zod': core.dependencies['fastify-type-provider-zod'],
      zod: core.dependencies.zod,
    });
  });

  it('prefixes every table and index with the plugin name and leads every key with tenant_id', () => {
    const sql = read('src/migrations/0001_items.ts');
    const tables = [...sql.matchAll(/CREATE TABLE (\w+)/g)].map((m) => m[1]);
    expect(tables).toEqual(['demo_item']);
    expect(sql).toMatch(/PRIMARY KEY \(tenant_id, id\)/);
    const indexes = [...sql.matchAll(/CREATE (?:UNIQUE )?INDEX (\w+) ON (\w+) \((\w+)/g)];
    expect(indexes.length).toBeGreaterThan(0);
    for (const [, name, table, first] of indexes) {
      expect(name.startsWith('demo_')).toBe(true);
      expect(table).toBe('demo_item');
      expect(first).toBe('tenant_id');
    }
    expect(sql).toContain("tenantTable('demo_item')");
    expect(read('src/services/demo-items.ts')).toContain('tx.publish(ITEM_CREATED');
    expect(read('src/schemas/demo-item.ts')).toContain('listQuery(');
  });

  it('writes to ./packages/plugin-<name> by default, and never over an existing folder', async () => {
    const first = await runCli(['plugin', 'new', 'gift-cards'], { cwd: tmp.dir });
    expect(first.code).toBe(0);
    expect(existsSync(path.join(tmp.dir, 'packages/plugin-gift-cards/src/entities/gift-cards-item.ts'))).toBe(true);
    expect(first.stdout).toContain('It is in the pnpm workspace already');

    const again = await runCli(['plugin', 'new', 'gift-cards'], { cwd: tmp.dir });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('packages/plugin-gift-cards already exists; nothing was written');
  });

  it.each([
    ['Gift_Cards', 'must be lower-case letters, digits and single dashes'],
    ['core', 'is taken by Qhatu core'],
    ['plugin-x', 'must not start with "plugin-"'],
  ])('refuses the name %s', async (name, message) => {
    const run = await runCli(['plugin', 'new', name, '--dir', path.join(tmp.dir, 'refused')], { cwd: tmp.dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`<name>: ${message}`);
    expect(existsSync(path.join(tmp.dir, 'refused'))).toBe(false);
  });
});

// Independent checks of one scaffold: type-checking runs beside the app and the test run.
describe.concurrent('the new plugin', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    await linkPluginDependencies(pluginDir);
  });

  it('finds @qhatu/core upwards, through packages/cli/node_modules', () => {
    expect(existsSync(path.join(CLI_DIR, 'node_modules/@qhatu/core/package.json'))).toBe(true);
    const resolved = createRequire(path.join(pluginDir, 'src/index.ts')).resolve('@qhatu/core');
    expect(realpathSync(resolved)).toBe(path.join(CORE_DIR, 'src/index.ts'));
  });

  it('loads into the full-store starter beside every other plugin, and serves its routes', async () => {
    const { default: plugin } = await import(path.join(pluginDir, 'src/index.ts'));
    const { default: starter } = await import(path.join(WORKSPACE, 'starters/full-store/qhatu.config.ts'));
    const t = await createTestApp({ plugins: [...starter.plugins, plugin] });
    try {
      const shop = await t.createTenant();
      const added = await t.request({ method: 'POST', url: '/api/v1/demo/items', headers: shop.headers(), payload: { title: 'Alpaca scarf' } });
      expect(added.statusCode).toBe(201);
      const list = await t.request({ method: 'GET', url: '/api/v1/demo/items', headers: shop.headers(shop.storefrontToken) });
      expect(list.statusCode).toBe(200);
      expect(list.json().data).toEqual([added.json().data]);
      const read = await t.request({ method: 'GET', url: `/api/v1/demo/items/${added.json().data.id}`, headers: shop.headers() });
      expect(read.json().data.title).toBe('Alpaca scarf');
      // Its permission is declared, named by its admin route and offered to roles.
      expect(plugin.permissions).toEqual([{ name: 'demo.write', description: 'Add demo items' }]);
      const permissions = await t.request({ method: 'GET', url: '/api/v1/permissions', headers: shop.headers() });
      expect(permissions.json().data).toContainEqual({ name: 'demo.write', description: 'Add demo items' });
      expect(t.app.routes.find((r) => r.method === 'POST' && r.url === '/api/v1/demo/items')?.permission).toBe('demo.write');
    } finally {
      await t.close();
    }
  });

  it('passes its own test', async () => {
    // Its own vitest config: the workspace's would run the global setup, which drops other files' databases.
    const config = path.join(tmp.dir, 'vitest.config.mjs');
    await writeFile(config, `export default { test: { include: ['plugin-demo/test/**/*.test.ts'], testTimeout: 30000, hookTimeout: 60000 } };\n`);
    const run = await runNode([path.join(WORKSPACE, 'node_modules/vitest/vitest.mjs'), 'run', '--root', tmp.dir, '--config', config], tmp.dir);
    expect(run.stdout + run.stderr).toMatch(/Tests\s+7 passed \(7\)/);
    expect(run.code).toBe(0);
  });

  it('type-checks under the workspace settings', async () => {
    const tsconfig = path.join(tmp.dir, 'tsconfig.json');
    const base = path.join(WORKSPACE, 'tsconfig.base.json');
    await writeFile(tsconfig, JSON.stringify({ extends: base, compilerOptions: { noEmit: true }, include: ['plugin-demo/src', 'plugin-demo/test'] }));
    const run = await runNode([path.join(WORKSPACE, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], tmp.dir);
    expect(run.stdout).toBe('');
    expect(run.code).toBe(0);
  });
});
