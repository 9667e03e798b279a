import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The gateway test kits as a store's tests meet them: `@qhatu/plugin-payments/testing` and each
 * gateway's `./testing` (its provider double) are built and published, and loading a package, or
 * the kit itself, loads no test runner. (The packed packages are installed and used in
 * packages/cli/test/packed.test.ts.)
 */

const PACKAGES = fileURLToPath(new URL('../../', import.meta.url));
const GATEWAYS = ['culqi', 'izipay', 'mercadopago', 'niubiz', 'payme', 'paypal', 'stripe'];
const KITS = ['plugin-payments', ...GATEWAYS.map((g) => `plugin-gateway-${g}`)];
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

/** Every gateway package that ships a double has a `./testing` kit. */
it('covers every gateway that has a provider double', () => {
  const withDoubles = readdirSync(PACKAGES).filter((d) => d.startsWith('plugin-gateway-') && existsSync(path.join(PACKAGES, d, 'src/testing.ts')));
  expect(withDoubles.sort()).toEqual(GATEWAYS.map((g) => `plugin-gateway-${g}`));
});

describe.each(KITS)('%s/testing', (name) => {
  const dir = path.join(PACKAGES, name);

  it('is exported in the workspace and once published', () => {
    const manifest = readJson(path.join(dir, 'package.json'));
    // The sources under the repository's condition, the build otherwise.
    expect(manifest.exports['./testing']).toEqual({ 'qhatu-source': './src/testing.ts', types: './dist/testing.d.ts', default: './dist/testing.js' });
    expect(manifest.publishConfig.exports['./testing']).toEqual({ types: './dist/testing.d.ts', default: './dist/testing.js' });
    expect(manifest.files).toContain('dist');
  });

  it('is built: the build takes the kit and every module it loads', () => {
    const parsed = ts.getParsedCommandLineOfConfigFile(path.join(dir, 'tsconfig.build.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } });
    const built = new Set(parsed!.fileNames.map((f) => path.relative(dir, f)));
    const wanted = ['src/testing.ts', ...(name === 'plugin-payments' ? ['src/http-double.ts', 'src/store-process.ts', 'src/store-child.ts'] : [])];
    for (const file of wanted) expect(built, file).toContain(file);
  });
});

/**
 * A module hook that refuses vitest: a Node process that loads the packages with it fails naming
 * the module that asked for it.
 */
const REFUSE_VITEST = `data:text/javascript,${encodeURIComponent(`
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`
export async function resolve(specifier, context, next) {
  if (/^(vitest|@vitest\\\\/)/.test(specifier)) throw new Error('test runner loaded: ' + specifier + ' from ' + context.parentURL);
  return next(specifier, context);
}\`));
`)}`;

function runNode(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', REFUSE_VITEST, '--input-type=module', '-e', script], {
      cwd: PACKAGES,
      env: { ...process.env, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const url = (file: string) => JSON.stringify(pathToFileURL(path.join(PACKAGES, file)).href);

describe('loading the packages and their kits', { timeout: 60_000 }, () => {
  it('the hook does refuse vitest', async () => {
    const run = await runNode(`await import('vitest');`);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('test runner loaded: vitest');
  });

  it('loads no test runner: core, payments and every gateway, then every kit, whose doubles work without one', async () => {
    const mains = ['core/src/index.ts', 'plugin-payments/src/index.ts', ...GATEWAYS.map((g) => `plugin-gateway-${g}/src/index.ts`)];
    const run = await runNode(`
      for (const file of [${mains.map(url).join(', ')}]) await import(file);
      const kits = [${KITS.map((k) => url(`${k}/src/testing.ts`)).join(', ')}];
      const [payments, ...doubles] = await Promise.all(kits.map((file) => import(file)));
      const { StripeDouble } = doubles.at(-1);
      const double = await new StripeDouble(new Set(['sk_test_kit'])).start();
      const answer = await fetch(double.url + '/v1/payment_intents/pi_missing', { headers: { authorization: 'Bearer sk_test_kit' } });
      await double.close();
      console.log(JSON.stringify({ kit: typeof payments.gatewayApp, double: answer.status }));
    `);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ kit: 'function', double: 404 });
  });
});
