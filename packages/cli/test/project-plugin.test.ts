import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adminUrl, urlFor } from '@qhatu/core/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli, stopLeftovers, WORKSPACE, type Finished } from './helpers.js';

// A store project of one's own, outside the workspace (linked to this clone's packages), and a plugin made in it.
let root: string;
let database: { url: string; drop(): Promise<void> };
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

/** Third-party packages come from pnpm's store, where installing this workspace put them. */
const OFFLINE = { npm_config_prefer_offline: 'true', NO_COLOR: '1', TEST_DATABASE_URL: process.env.TEST_DATABASE_URL };

/** A printed step, run as the developer would paste it into a shell. */
function shell(command: string, cwd: string, env: Record<string, string | undefined> = {}): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { cwd, env: cliEnv({ ...OFFLINE, ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'qhatu-project-'));
  const name = `qhatu_test_${Math.floor(Date.now() / 1000)}_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`create database ${name}`));
  database = { url: urlFor(name), drop: () => admin(async (c) => void (await c.query(`drop database if exists ${name} with (force)`))) };
});
afterAll(async () => {
  stopLeftovers();
  await database?.drop();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('qhatu plugin new in a store project', { timeout: 600_000 }, () => {
  it('makes a plugin that installs, type-checks, tests and mounts with the store, every printed step working as printed', async () => {
    const shop = path.join(root, 'shop');
    const made = await runCli(['new', shop, '--from', WORKSPACE, '--plugins', 'catalog', '--no-install'], { cwd: root });
    expect(made.code, made.stderr).toBe(0);
    expect(readFileSync(path.join(shop, 'pnpm-workspace.yaml'), 'utf8')).toContain('packages:\n  - packages/*\n');

    const created = await runCli(['plugin', 'new', 'gift-wrap'], { cwd: shop });
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('Created @qhatu/plugin-gift-wrap in packages/plugin-gift-wrap:');
    expect(created.stdout).toContain('The store takes it in:\n  package.json: "@qhatu/plugin-gift-wrap" in dependencies\n');
    // The plugin asks for the store's own core: one copy of it in the store.
    const project = readJson(path.join(shop, 'package.json'));
    expect(project.dependencies['@qhatu/plugin-gift-wrap']).toBe('workspace:*');
    expect(readJson(path.join(shop, 'packages/plugin-gift-wrap/package.json')).dependencies['@qhatu/core']).toBe(project.dependencies['@qhatu/core']);

    const steps = created.stdout.slice(created.stdout.indexOf('\nNext:\n'));
    expect(steps).toContain('  1. pnpm install\n');
    const importLine = /^ {7}(import giftWrap from '@qhatu\/plugin-gift-wrap';)$/m.exec(steps)?.[1];
    expect(importLine).toBeDefined();
    expect(steps).toContain('export default defineProject({ plugins: [/* ... */, giftWrap] });');
    const check = /^ {2}3\. (.+?) {3}\(/m.exec(steps)?.[1];
    const migrate = /^ {2}4\. (.+?) {3}\(/m.exec(steps)?.[1];
    const generate = /^ {2}5\. After changing its entities: (.+?), then (.+)$/m.exec(steps);
    expect([check, migrate, generate?.[1], generate?.[2]]).toEqual(['pnpm typecheck && pnpm test', 'pnpm migrate', 'pnpm qhatu migration generate gift-wrap', 'pnpm migrate']);

    const installed = await shell('pnpm install', shop);
    expect(installed.code, installed.stdout + installed.stderr).toBe(0);
    // Step 2, as a developer edits qhatu.config.ts.
    const configFile = path.join(shop, 'qhatu.config.ts');
    const config = readFileSync(configFile, 'utf8');
    await writeFile(configFile, config.replace("import { defineProject } from '@qhatu/core';", `import { defineProject } from '@qhatu/core';\n${importLine}`).replace('  plugins: [\n', '  plugins: [\n    giftWrap,\n'));

    const tested = await shell(check!, shop);
    expect(tested.code, tested.stdout + tested.stderr).toBe(0);
    // Both files: the store's (now with the plugin mounted beside catalog) and the plugin's own.
    expect(tested.stdout).toMatch(/packages\/plugin-gift-wrap\/test\/gift-wrap\.test\.ts \(7 tests\)/);
    expect(tested.stdout).toMatch(/test\/store\.test\.ts \(3 tests\)/);

    const migrated = await shell(migrate!, shop, { DATABASE_URL: database.url });
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toContain('applied gift-wrap/0001_items');
    const generated = await shell(generate![1], shop, { DATABASE_URL: database.url });
    expect(generated.code, generated.stderr).toBe(0);
    expect(generated.stdout).toContain('Nothing to generate: the database has every table, column and index the entities of gift-wrap declare.');
  });

  it('brings an older project up to it: workspace file, typecheck script and tools, tsconfig and vitest includes', async () => {
    const old = path.join(root, 'older');
    expect((await runCli(['new', old, '--plugins', 'crm', '--no-install'], { cwd: root })).code).toBe(0);
    // What `qhatu new` wrote before plugins of one's own were covered.
    await unlink(path.join(old, 'pnpm-workspace.yaml'));
    const pkg = readJson(path.join(old, 'package.json'));
    delete pkg.scripts.typecheck;
    pkg.devDependencies = { vitest: pkg.devDependencies.vitest };
    await writeFile(path.join(old, 'package.json'), JSON.stringify(pkg, null, 2));
    const tsconfig = readJson(path.join(old, 'tsconfig.json'));
    tsconfig.include = ['qhatu.config.ts', 'vitest.config.ts', 'src', 'test'];
    await writeFile(path.join(old, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    const vitest = readFileSync(path.join(old, 'vitest.config.ts'), 'utf8');
    await writeFile(path.join(old, 'vitest.config.ts'), vitest.replace(/include: \[[^\]]*\]/, "include: ['test/**/*.test.ts']"));

    const created = await runCli(['plugin', 'new', 'loyalty'], { cwd: old });
    expect(created.code, created.stderr).toBe(0);
    for (const change of [
      'package.json: "@qhatu/plugin-loyalty" in dependencies',
      'package.json: the typecheck script',
      'package.json: @types/node, typescript in devDependencies',
      'pnpm-workspace.yaml: written, with packages/*',
      'tsconfig.json: packages/*/src, packages/*/test in include',
      'vitest.config.ts: packages/*/test/**/*.test.ts in test.include',
    ]) {
      expect(created.stdout).toContain(`  ${change}\n`);
    }
    const now = readJson(path.join(old, 'package.json'));
    expect(now.scripts.typecheck).toBe('tsc -p tsconfig.json');
    expect(Object.keys(now.devDependencies).sort()).toEqual(['@types/node', 'typescript', 'vitest']);
    expect(readFileSync(path.join(old, 'vitest.config.ts'), 'utf8')).toContain("include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts']");
    expect(readJson(path.join(old, 'packages/plugin-loyalty/package.json')).dependencies['@qhatu/core']).toBe(now.dependencies['@qhatu/core']);
  });

  it('speaks npm in an npm project: workspaces in package.json, npm commands in the steps', async () => {
    const dir = path.join(root, 'npm-shop');
    expect((await runCli(['new', dir, '--plugins', 'crm', '--package-manager', 'npm', '--no-install'], { cwd: root })).code).toBe(0);
    expect(readJson(path.join(dir, 'package.json')).workspaces).toEqual(['packages/*']);
    expect(existsSync(path.join(dir, 'pnpm-workspace.yaml'))).toBe(false);
    const created = await runCli(['plugin', 'new', 'loyalty'], { cwd: dir });
    expect(created.code, created.stderr).toBe(0);
    expect(readJson(path.join(dir, 'package.json')).dependencies['@qhatu/plugin-loyalty']).toBe('*');
    expect(created.stdout).toContain('  1. npm install\n');
    expect(created.stdout).toContain('  3. npm run typecheck && npm test');
    expect(created.stdout).toContain('  5. After changing its entities: npm run qhatu -- migration generate loyalty, then npm run migrate');
  });
});
