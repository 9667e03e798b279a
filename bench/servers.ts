import { fork, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fullStore from '../starters/full-store/qhatu.config.js';
import { startBaseline } from './baseline.js';

/** The plugins of the full-store starter: the app under test is the whole platform. */
export const BENCH_PLUGINS = fullStore.plugins;

/**
 * The servers under test each run in a child process of the benchmark: autocannon parses responses
 * in JavaScript, and sharing one event loop with it would add the load generator's own work to every
 * measured latency. In its own process a server has its own event loop, as in production; all
 * processes still share this machine's cores and PostgreSQL.
 */
export type ServerKind = 'app' | 'baseline';

export interface ServerOptions {
  databaseUrl: string;
  port: number;
  poolMax: number;
  platformToken: string;
  logLevel: string;
}

export interface RunningServer {
  kind: ServerKind;
  url: string;
  pid: number;
  /** Starts the V8 CPU profiler in the server process. */
  startProfile(): Promise<void>;
  /** Stops it and writes a .cpuprofile (open it in Chrome DevTools or speedscope). */
  saveProfile(file: string): Promise<void>;
  stop(): Promise<void>;
}

type ToChild =
  | { type: 'start'; kind: ServerKind; options: ServerOptions }
  | { type: 'profile-start' }
  | { type: 'profile-save'; file: string }
  | { type: 'stop' };
type FromChild =
  | { type: 'listening'; url: string }
  | { type: 'failed'; message: string }
  | { type: 'profile-started' }
  | { type: 'profile-saved' };

const SERVE_FLAG = '--serve';
const STOP_GRACE_MS = 10_000;

/** A TCP port nobody listens on right now (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Sends `message` and resolves with the child's next answer (rejects if it exits first). */
function ask(child: ChildProcess, message: ToChild): Promise<FromChild> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`server process exited (code ${code})`));
    child.once('exit', onExit);
    child.once('message', (answer: FromChild) => {
      child.off('exit', onExit);
      resolve(answer);
    });
    child.send(message);
  });
}

/** Starts a server in a child process and resolves once it listens. */
/** `BENCH_COMPILED=1`: the app's process runs the packages' compiled dist/ (as `pnpm start` does), not their sources. */
const COMPILED = process.env.BENCH_COMPILED === '1';
const SOURCE_CONDITION = '--conditions=qhatu-source';

export async function spawnServer(kind: ServerKind, options: ServerOptions): Promise<RunningServer> {
  // Without the source condition every @qhatu package (the starter's plugins and core) resolves to dist/.
  const env = COMPILED ? { ...process.env, NODE_OPTIONS: (process.env.NODE_OPTIONS ?? '').replace(SOURCE_CONDITION, '').trim() } : process.env;
  const child = fork(fileURLToPath(import.meta.url), [SERVE_FLAG], { stdio: 'inherit', env });
  try {
    // The options (the platform token among them) go over IPC, not argv, so `ps` does not show them.
    const answer = await ask(child, { type: 'start', kind, options });
    if (answer.type !== 'listening') throw new Error(answer.type === 'failed' ? answer.message : `unexpected ${answer.type}`);
    return {
      kind,
      url: answer.url,
      pid: child.pid!,
      startProfile: async () => void (await ask(child, { type: 'profile-start' })),
      saveProfile: async (file) => void (await ask(child, { type: 'profile-save', file })),
      stop: () => stopChild(child),
    };
  } catch (error) {
    await stopChild(child);
    throw new Error(`${kind} server failed to start: ${error instanceof Error ? error.message : error}`, { cause: error });
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.connected) child.send({ type: 'stop' } satisfies ToChild);
  else child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

/** The real app as production runs it: one process, the full-store starter's plugins, no job workers. */
async function startApp(options: ServerOptions): Promise<{ url: string; close(): Promise<void> }> {
  // @qhatu/core as the starter's plugins resolve it: its sources under the tests' condition, else dist/.
  const core = createRequire(fileURLToPath(new URL('../starters/full-store/qhatu.config.ts', import.meta.url))).resolve('@qhatu/core');
  const { createApp, loadConfig } = (await import(pathToFileURL(core).href)) as typeof import('../packages/core/src/index.js');
  const config = loadConfig({
    DATABASE_URL: options.databaseUrl,
    QHATU_PLATFORM_TOKEN: options.platformToken,
    QHATU_ENV: 'production',
    LOG_LEVEL: options.logLevel,
    HOST: '127.0.0.1',
    PORT: String(options.port),
    DATABASE_POOL_MAX: String(options.poolMax),
  });
  const app = await createApp({ plugins: BENCH_PLUGINS, config, workers: false });
  try {
    await app.listen();
  } catch (error) {
    await app.close();
    throw error;
  }
  return { url: `http://127.0.0.1:${options.port}`, close: () => app.close() };
}

/** Child side: waits for its options, starts the server, stops when told or when the parent goes. */
function serveForParent(): void {
  let close: (() => Promise<void>) | undefined;
  let profiler: Session | undefined;
  const reply = (message: FromChild, then?: () => void) => process.send!(message, undefined, {}, then);
  const shutdown = async () => {
    await close?.().catch((error) => console.error('server did not close cleanly:', error));
    process.exit(0);
  };

  const handlers: { [T in ToChild['type']]: (message: Extract<ToChild, { type: T }>) => Promise<void> } = {
    async start({ kind, options }) {
      try {
        const server = kind === 'app' ? await startApp(options) : await startBaseline(options);
        close = () => server.close();
        reply({ type: 'listening', url: server.url });
      } catch (error) {
        // Exit only once the message is out, or the parent would see a bare exit code.
        reply({ type: 'failed', message: error instanceof Error ? error.stack ?? error.message : String(error) }, () => process.exit(1));
      }
    },
    async 'profile-start'() {
      if (!profiler) {
        profiler = new Session();
        profiler.connect();
        await profiler.post('Profiler.enable');
      }
      await profiler.post('Profiler.start');
      reply({ type: 'profile-started' });
    },
    async 'profile-save'({ file }) {
      const { profile } = await profiler!.post('Profiler.stop');
      await writeFile(file, JSON.stringify(profile));
      reply({ type: 'profile-saved' });
    },
    stop: shutdown,
  };

  process.on('disconnect', shutdown);
  process.on('message', (message: ToChild) => void handlers[message.type](message as never));
}

if (process.argv[2] === SERVE_FLAG && process.send) serveForParent();
