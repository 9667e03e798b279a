import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestApp, TestTenant } from '@qhatu/core/testing';

/** An answer of the store process, shaped like `app.inject`'s where tests read it. */
export interface ProcessAnswer {
  statusCode: number;
  body: string;
  json(): any;
}

/** A store's API running in a child process (a real one, with its own connections and memory). */
export interface StoreProcess {
  url: string;
  /** A request over the process's socket, as `tenant`'s admin (or with `token`). */
  request(tenant: TestTenant, method: string, path: string, body?: unknown, token?: string): Promise<ProcessAnswer>;
  /** SIGKILL: the process dies where it stands, nothing closed; resolves once it is gone. */
  kill(): Promise<void>;
  /** SIGTERM: closes the app as `qhatu start` does. */
  stop(): Promise<void>;
}

/** A store process spawned and loading its modules, waiting for its database and settings. */
export interface SpawnedStoreProcess {
  /** Starts the store on `t`'s database and settings (plus `env`); with `workers` it runs the jobs and the sweep, as `qhatu worker` does. */
  start(t: TestApp, options?: { env?: Record<string, string>; workers?: boolean }): Promise<StoreProcess>;
  kill(): Promise<void>;
}

// The sources run through tsx; the published kit is JavaScript, next to this file either way.
const SOURCE = import.meta.url.endsWith('.ts');
const CHILD = fileURLToPath(new URL(SOURCE ? './store-child.ts' : './store-child.js', import.meta.url));
const running = new Set<{ kill(): Promise<void> }>();

/** Kills every store process still running (for `afterAll`). */
export async function stopStoreProcesses(): Promise<void> {
  for (const store of [...running]) await store.kill();
}

/** Resolves with the capture of `pattern` once the child's output shows it; rejects with its errors if it exits first. */
function awaitLine(child: ChildProcess, pattern: RegExp, exited: Promise<void>, errors: () => string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the store process did not get to ${pattern} in 90 s: ${errors()}`)), 90_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const match = pattern.exec(out);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off('data', read);
      resolve(match[1] ?? match[0]);
    };
    child.stdout!.on('data', read);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the store process exited: ${errors()}`));
    });
  });
}

/**
 * Spawns the store (media, catalog, customers, inventory, orders, payments and the plugins whose
 * module files `plugins` names, each exporting the plugin as default) in a child process at once, so
 * that its modules load while the test prepares; `start` then gives it the database and listens.
 */
export function spawnStoreProcess(options: { plugins: string[] }): SpawnedStoreProcess {
  const env = { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent', QHATU_TEST_PLUGIN_FILES: JSON.stringify(options.plugins) };
  // A TypeScript plugin module needs tsx in the child too.
  const loader = SOURCE || options.plugins.some((file) => /\.[cm]?ts$/.test(file)) ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...loader, CHILD], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => void (errors = (errors + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const loaded = awaitLine(child, /loaded\n/, exited, () => errors);
  loaded.catch(() => undefined);
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    running.delete(spawned);
  };
  const spawned: SpawnedStoreProcess = {
    kill,
    async start(t, startOptions = {}) {
      await loaded;
      const settings = { ...t.app.config.environment, ...startOptions.env, PORT: '0', HOST: '127.0.0.1', QHATU_TEST_WORKERS: String(Boolean(startOptions.workers)) };
      child.stdin!.write(`${JSON.stringify(settings)}\n`);
      const url = await awaitLine(child, /listening (\S+)/, exited, () => errors);
      return {
        url,
        async request(tenant, method, path, body, token) {
          const headers: Record<string, string> = { ...tenant.headers(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
          const res = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
          const text = await res.text();
          return { statusCode: res.status, body: text, json: () => JSON.parse(text) };
        },
        kill,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
          running.delete(spawned);
        },
      };
    },
  };
  running.add(spawned);
  return spawned;
}

/** `spawnStoreProcess` and `start` at once. */
export async function startStoreProcess(t: TestApp, options: { plugins: string[]; env?: Record<string, string>; workers?: boolean }): Promise<StoreProcess> {
  return spawnStoreProcess(options).start(t, options);
}
