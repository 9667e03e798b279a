import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../bin/qhatu.js', import.meta.url));
export const CLI_DIR = path.dirname(path.dirname(CLI));
export const WORKSPACE = path.resolve(CLI_DIR, '../..');

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The child's whole environment: nothing leaks in from the test runner's. */
export function cliEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  // NODE_OPTIONS carries the tests' `--conditions=qhatu-source`: a clone's CLI runs its sources.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'silent', QHATU_ENV: 'development', NODE_OPTIONS: process.env.NODE_OPTIONS };
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<Finished>;
}

const started = new Set<ChildProcess>();

/** Kills what a failed or timed-out test left running (only the children this file started). */
export function stopLeftovers(): void {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** Starts `node bin/qhatu.js ...args` in `cwd` (or another copy of the CLI's bin). */
export function spawnCli(args: string[], options: { cwd: string; env?: Record<string, string | undefined>; cli?: string }): Running {
  const child = spawn(process.execPath, [options.cli ?? CLI, ...args], { cwd: options.cwd, env: cliEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
  started.add(child);
  child.on('exit', () => started.delete(child));
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<Finished>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Runs a command to its end. */
export function runCli(args: string[], options: { cwd: string; env?: Record<string, string | undefined> }): Promise<Finished> {
  return spawnCli(args, options).exited;
}

export const platformToken = () => `qhp_${randomBytes(24).toString('base64url')}`;

export interface TempProject {
  dir: string;
  remove(): Promise<void>;
}

/**
 * A store project in packages/cli/.tmp-*: inside the workspace, so its `@qhatu/core` import
 * resolves upwards through packages/cli/node_modules as a starter's does, yet outside `test/`,
 * so that a run that crashed leaves nothing the workspace's vitest or tsc would pick up.
 */
export async function tempProject(config = `import { defineProject } from '@qhatu/core';\n\nexport default defineProject({ plugins: [] });\n`): Promise<TempProject> {
  const dir = path.join(CLI_DIR, `.tmp-${randomBytes(4).toString('hex')}`);
  await mkdir(dir, { recursive: true });
  if (config) await writeFile(path.join(dir, 'qhatu.config.ts'), config);
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Polls `check` while the process runs, or fails with what it printed. */
export async function waitUntil(check: () => boolean | Promise<boolean>, running: Running, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void running.exited.then(() => (exited = true));
  while (Date.now() < deadline && !exited) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${exited ? 'the process exited' : 'timed out'} while waiting\nstdout:\n${running.stdout()}\nstderr:\n${running.stderr()}`);
}

/** Waits until `url` answers 200 (`timeoutMs`: a first start that makes and migrates its embedded database takes longer on a busy machine). */
export function waitUntilReady(url: string, running: Running, timeoutMs?: number): Promise<void> {
  return waitUntil(() => fetch(url).then((r) => r.status === 200, () => false), running, timeoutMs);
}

/**
 * What `pnpm install` does for a plugin made by `qhatu plugin new` inside the workspace: link each
 * dependency it declares from core's own (the versions must be those core is built with);
 * `@qhatu/core` itself is found upwards, through packages/cli/node_modules.
 */
export async function linkPluginDependencies(dir: string): Promise<void> {
  const core = path.join(WORKSPACE, 'packages/core');
  const { dependencies } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  for (const [name, version] of Object.entries(dependencies)) {
    if (version.startsWith('workspace:')) continue;
    const target = realpathSync(path.join(core, 'node_modules', name));
    const installed = JSON.parse(readFileSync(path.join(target, 'package.json'), 'utf8')).version;
    if (installed !== version) throw new Error(`${name}: the plugin asks for ${version}, core has ${installed}`);
    await mkdir(path.dirname(path.join(dir, 'node_modules', name)), { recursive: true });
    await symlink(target, path.join(dir, 'node_modules', name), 'dir');
  }
}
