import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import starter from '../../../starters/full-store/qhatu.config.js';
import { CATALOGUE } from '../src/scaffold/project/catalogue.js';
import { PROJECT_DEV_DEPENDENCIES } from '../src/scaffold/project/workspace.js';
import { runCli, stopLeftovers, WORKSPACE } from './helpers.js';

// Projects are made outside the workspace, where a store of one's own would be.
let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'qhatu-new-'));
});
afterAll(async () => rm(root, { recursive: true, force: true }));
afterEach(() => stopLeftovers());

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

describe('qhatu new', { timeout: 60_000 }, () => {
  it('offers the plugins of the full-store starter, in its order, with their dependencies', () => {
    expect(CATALOGUE.map((p) => p.name)).toEqual(starter.plugins.map((p) => p.name));
    for (const plugin of starter.plugins) {
      expect(CATALOGUE.find((p) => p.name === plugin.name)!.dependsOn, plugin.name).toEqual(plugin.dependsOn ?? []);
    }
    const workspaceTools = readJson(path.join(WORKSPACE, 'package.json')).devDependencies;
    for (const [tool, version] of Object.entries(PROJECT_DEV_DEPENDENCIES)) expect(version, tool).toBe(workspaceTools[tool]);
  });

  // Installed from packed tarballs (--from <folder>), a project's own test runs in packed.test.ts.
  it('writes a project with the plugins named and those they depend on, linked to a clone with --from', async () => {
    const dir = path.join(root, 'Corner Shop');
    const made = await runCli(['new', dir, '--from', WORKSPACE, '--plugins', 'reviews,blog', '--no-install'], { cwd: root });
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    expect(made.stdout).toContain('with 7 plugins: media, catalog, customers, inventory, orders, blog, reviews');
    expect(made.stdout).toContain('(catalog, customers, inventory, media, orders came in as dependencies');
    expect(made.stdout).toMatch(/cd Corner Shop\n {2}pnpm install\n {2}pnpm start .*\n {2}pnpm test /);
    for (const file of ['package.json', 'pnpm-workspace.yaml', 'qhatu.config.ts', 'test/store.test.ts', 'vitest.config.ts', 'tsconfig.json', '.env.example', '.gitignore', 'README.md']) {
      expect(existsSync(path.join(dir, file)), file).toBe(true);
    }
    const pkg = readJson(path.join(dir, 'package.json'));
    expect(pkg.name).toBe('corner-shop');
    expect(pkg.scripts).toMatchObject({ start: 'qhatu start', test: 'vitest run', typecheck: 'tsc -p tsconfig.json' });
    expect(Object.keys(pkg.devDependencies).sort()).toEqual(['@types/node', 'typescript', 'vitest']);
    // Plugins of its own (packages/*) are in its workspace, its type-check and its tests.
    expect(readFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'utf8')).toContain('  - packages/*\n');
    expect(readJson(path.join(dir, 'tsconfig.json')).include).toEqual(expect.arrayContaining(['packages/*/src', 'packages/*/test']));
    expect(readFileSync(path.join(dir, 'vitest.config.ts'), 'utf8')).toContain("include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts']");
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

  it('takes each package from its tarball with --from <folder>, and pins every tarball for the whole tree', async () => {
    const packed = path.join(root, 'packed');
    await mkdir(packed);
    const names = ['cli', 'core', 'plugin-media', 'plugin-catalog', 'plugin-orders'];
    for (const name of names) await writeFile(path.join(packed, `qhatu-${name}-0.1.0.tgz`), '');
    await writeFile(path.join(packed, 'notes.txt'), 'not a package');
    const tarball = (name: string) => `file:${path.join(packed, `qhatu-${name}-0.1.0.tgz`)}`;

    const dir = path.join(root, 'from-tarballs');
    const made = await runCli(['new', dir, '--from', packed, '--plugins', 'catalog', '--no-install'], { cwd: root });
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    const pkg = readJson(path.join(dir, 'package.json'));
    expect(pkg.dependencies).toEqual(Object.fromEntries(['cli', 'core', 'plugin-catalog', 'plugin-media'].map((n) => [`@qhatu/${n}`, tarball(n)])));
    // plugin-orders is no dependency of the project, but a package asking for it gets the tarball too.
    expect(pkg.pnpm.overrides).toEqual(Object.fromEntries(names.map((n) => [`@qhatu/${n}`, tarball(n)])));

    const withNpm = path.join(root, 'from-tarballs-npm');
    expect((await runCli(['new', withNpm, '--from', packed, '--plugins', 'catalog', '--package-manager', 'npm', '--no-install'], { cwd: root })).code).toBe(0);
    const npmPkg = readJson(path.join(withNpm, 'package.json'));
    expect(npmPkg.overrides).toEqual(pkg.pnpm.overrides);
    expect(npmPkg.pnpm).toBeUndefined();

    const missing = await runCli(['new', path.join(root, 'from-tarballs-crm'), '--from', packed, '--plugins', 'crm', '--no-install'], { cwd: root });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`error: --from ${packed}: it has no tarball of @qhatu/plugin-crm`);

    await writeFile(path.join(packed, 'qhatu-core-0.2.0.tgz'), '');
    const twice = await runCli(['new', path.join(root, 'from-tarballs-twice'), '--from', packed, '--plugins', 'catalog', '--no-install'], { cwd: root });
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('two tarballs of @qhatu/core (qhatu-core-0.1.0.tgz and qhatu-core-0.2.0.tgz)');
    expect(existsSync(path.join(root, 'from-tarballs-twice'))).toBe(false);
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
    [['--from', '/nowhere'], 'error: --from /nowhere: no Qhatu packages there', '--from takes a folder of packed packages'],
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
