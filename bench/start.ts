/**
 * `pnpm bench:start`: how long `pnpm start` (the compiled packages, the full store's plugins, the
 * embedded database) takes until it listens. The time runs from the process's spawn to the
 * banner's first line ("Qhatu is listening on …"), printed once the server accepts connections.
 * A first start makes and migrates the data folder (timed apart); the measured starts reuse it, as
 * every start but the first does. Median of `BENCH_START_RUNS` (default 3).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Math.max(1, Number(process.env.BENCH_START_RUNS ?? 3));
const CLI = path.join(ROOT, 'packages/cli/bin/qhatu.js');
const CONFIG = path.join(ROOT, 'starters/full-store/qhatu.config.ts');

/** Starts the store on `dataDir` and answers the milliseconds until it listens; the process is then stopped. */
function timeStart(dataDir: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // Plain node, as `pnpm start` runs it (NODE_OPTIONS of the caller left out: no source condition).
    const child = spawn(process.execPath, [CLI, 'start', '--config', CONFIG], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, QHATU_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let timed: number | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (timed === undefined && /Qhatu is listening on /.test(out)) {
        timed = performance.now() - started;
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (timed === undefined ? reject(new Error(`qhatu start ended (${code}) before listening:\n${out}\n${err}`)) : resolve(timed)));
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  if (process.env.BENCH_START_BUILD !== '0') {
    process.stdout.write('pnpm build:packages …\n');
    const built = spawnSync('pnpm', ['build:packages'], { cwd: ROOT, stdio: 'inherit' });
    if (built.status !== 0) throw new Error('pnpm build:packages failed');
  }
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'qhatu-bench-start-'));
  try {
    const first = await timeStart(dataDir);
    const runs: number[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await timeStart(dataDir));
    const [load1, load5] = os.loadavg();
    process.stdout.write(
      [
        `Node        ${process.version}`,
        `CPU         ${os.cpus()[0]?.model ?? '?'} × ${os.cpus().length}`,
        `Load avg    ${load1.toFixed(2)} / ${load5.toFixed(2)} (1/5 min, at the end)`,
        '',
        '| start | ms |',
        '| --- | ---: |',
        `| first (a new data folder: made and migrated) | ${first.toFixed(0)} |`,
        ...runs.map((ms, i) => `| again, run ${i + 1} | ${ms.toFixed(0)} |`),
        `| **median of ${RUNS}** | **${median(runs).toFixed(0)}** |`,
        '',
      ].join('\n'),
    );
    const bar = 3000;
    process.stdout.write(`${median(runs) <= bar ? 'ok  ' : 'MISSED'} pnpm start ready in ${median(runs).toFixed(0)} ms (bar ${bar} ms)\n`);
    process.exitCode = median(runs) <= bar ? 0 : 1;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
