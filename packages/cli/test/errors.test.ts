import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformToken, runCli, tempProject, type Finished, type TempProject } from './helpers.js';

// A valid environment whose database is never reached: each error here comes before it.
const env = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere', QHATU_PLATFORM_TOKEN: platformToken() };

const projects: TempProject[] = [];
async function project(config: string | null) {
  const p = await tempProject(config ?? '');
  projects.push(p);
  return p.dir;
}
afterAll(async () => Promise.all(projects.map((p) => p.remove())));

/** Fails with exit code 1 and a message, never a stack trace. */
function expectCleanFailure(run: Finished, ...messages: string[]) {
  expect(run.code).toBe(1);
  for (const message of messages) expect(run.stderr).toContain(message);
  expect(run.stderr).not.toMatch(/^\s+at /m);
}

describe.concurrent('the project file', { timeout: 90_000 }, () => {
  it('says where it looked when qhatu.config.ts is missing', async () => {
    const dir = await project(null);
    expectCleanFailure(await runCli(['migrate'], { cwd: dir, env }), `no project file at ${dir}/qhatu.config.ts`, '--config <path>');
  });

  it('follows --config, and says when that path is wrong', async () => {
    const dir = await project(null);
    expectCleanFailure(await runCli(['migrate', '--config', 'store/qhatu.config.ts'], { cwd: dir, env }), `no project file at ${dir}/store/qhatu.config.ts`, 'check the --config path');
  });

  it('explains a default export without a list of plugins', async () => {
    const dir = await project(`export default { plugin: [] };\n`);
    expectCleanFailure(await runCli(['migrate'], { cwd: dir, env }), '"plugins" must be a list', 'defineProject({ plugins: [');
  });

  it('names the entry that is not a plugin', async () => {
    const dir = await project(`export default { plugins: [{ name: 'ok' }, undefined] };\n`);
    expectCleanFailure(await runCli(['migrate'], { cwd: dir, env }), 'plugins[1] is not a plugin (got undefined)');
  });

  it('reports a plugin whose dependency is not installed', async () => {
    const dir = await project(`export default { plugins: [{ name: 'orders', dependsOn: ['catalog'] }] };\n`);
    expectCleanFailure(await runCli(['migrate'], { cwd: dir, env }), 'Plugin "orders" depends on "catalog", which is not installed');
  });

  it('reports a project file that does not load', async () => {
    const dir = await project(`import missing from 'no-such-plugin';\nexport default { plugins: [missing] };\n`);
    expectCleanFailure(await runCli(['migrate'], { cwd: dir, env }), 'cannot load', "Cannot find package 'no-such-plugin'");
  });
});

describe.concurrent('the environment', { timeout: 90_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await project(`export default { plugins: [] };\n`);
  });

  it('lists every invalid variable at once', async () => {
    const run = await runCli(['start'], { cwd: dir, env: { ...env, PORT: 'eighty', QHATU_PLATFORM_TOKEN: 'short', LOG_LEVEL: 'loud' } });
    expectCleanFailure(run, 'the environment is not a valid configuration', 'PORT:', 'QHATU_PLATFORM_TOKEN: must be at least 24 characters', 'LOG_LEVEL:');
  });

  it('says when the database cannot be reached', async () => {
    expectCleanFailure(await runCli(['migrate'], { cwd: dir, env }), 'cannot reach the database', 'check DATABASE_URL');
  });
});

describe.concurrent('command input', { timeout: 90_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await project(`export default { plugins: [] };\n`);
  });

  it('names each invalid tenant option by its flag', async () => {
    const run = await runCli(['tenants', 'create', '--name', ' ', '--slug', 'Café', '--currency', 'usd', '--locale', 'english'], { cwd: dir, env });
    expectCleanFailure(
      run,
      '--name: must not be empty',
      '--slug: must be lower-case letters and digits separated by single dashes',
      '--currency: must be an ISO 4217 code in capitals, e.g. USD',
      '--locale: must be a locale such as es or es-PE',
    );
  });

  it('names each invalid api-key option by its flag', async () => {
    const run = await runCli(['api-keys', 'create', '--tenant', '42', '--name', 'Admin', '--scope', 'root', '--expires-at', '2020-01-01T00:00:00Z'], { cwd: dir, env });
    expectCleanFailure(run, '--tenant: must be a UUID', '--scope: must be admin or storefront', '--expires-at: must be in the future');
  });
});
