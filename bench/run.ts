/**
 * `pnpm bench`: HTTP throughput and latency of the catalog API against a bare fastify + pg baseline,
 * all measured in this run on this machine. See docs/benchmarks.md.
 *
 * Environment: BENCH_DURATION (seconds per scenario, default 10), BENCH_DATABASE_URL or
 * TEST_DATABASE_URL (PostgreSQL admin URL), LOG_LEVEL (the app's, default silent), BENCH_PROFILE
 * (a folder: write a CPU profile of the server per scenario there; slows the servers down),
 * BENCH_RUNS (rounds of all scenarios on the same servers, default 1: with more, each round's table
 * and then the medians), BENCH_ONLY (a regular expression: only the scenarios whose name matches,
 * and the baselines).
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase } from '../packages/core/src/testing/index.js';
import { CEILING_LOAD, HISTORY_ROWS } from './baseline.js';
import { cpuBetween, readCpu, type CpuReading } from './cpu.js';
import { describeMachine, failed, formatFailures, formatFlows, formatMachine, formatMedians, formatProfile, formatResults, formatSizing, formatTargets } from './report.js';
import { ceilingPaths, runScenario, scenarios, TARGETS, type LoadSettings, type Scenario, type ScenarioResult } from './scenarios.js';
import type { SeededStore } from './seed.js';
import { seedStore } from './seed.js';
import { BENCH_PLUGINS, freePort, spawnServer, type RunningServer, type ServerKind, type ServerOptions } from './servers.js';

const CONNECTIONS = 50;
const WARMUP_SECONDS = 2;
const DEFAULT_DURATION_SECONDS = 10;
const PRODUCT_COUNT = 200;
// Carts for the add-to-cart scenario; with 600 variants each cart ends up with at most a dozen lines.
const CART_COUNT = 250;
// The app's default pool size; the baseline gets the same so the comparison is about the code path.
const POOL_MAX = 10;
// autocannon stops with up to one request per connection still in the server; let them finish so
// they neither load the next scenario nor get cut off by the shutdown.
const SETTLE_MS = 1_000;

const log = (line: string) => console.error(`[bench] ${line}`);

function loadSettings(): LoadSettings & { runs: number; only: RegExp | null } {
  const raw = process.env.BENCH_DURATION;
  const duration = raw === undefined || raw === '' ? DEFAULT_DURATION_SECONDS : Number(raw);
  if (!Number.isFinite(duration) || duration <= 0) throw new Error(`BENCH_DURATION must be a positive number of seconds, not "${raw}"`);
  const rawRuns = process.env.BENCH_RUNS;
  const runs = rawRuns === undefined || rawRuns === '' ? 1 : Number(rawRuns);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`BENCH_RUNS must be a whole number of rounds, not "${rawRuns}"`);
  const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : null;
  const rawConnections = process.env.BENCH_CONNECTIONS;
  const connections = rawConnections === undefined || rawConnections === '' ? CONNECTIONS : Number(rawConnections);
  if (!Number.isInteger(connections) || connections < 1) throw new Error(`BENCH_CONNECTIONS must be a whole number of connections, not "${rawConnections}"`);
  return { connections, durationSeconds: duration, warmupSeconds: WARMUP_SECONDS, runs, only };
}

/** Cleanup steps, run newest first, once, whether the run succeeded, failed or was interrupted. */
class Cleanup {
  private readonly steps: Array<{ what: string; run: () => Promise<void> }> = [];
  private done?: Promise<void>;

  add(what: string, run: () => Promise<void>): void {
    this.steps.push({ what, run });
  }

  run(): Promise<void> {
    this.done ??= (async () => {
      for (const step of this.steps.reverse()) {
        await step.run().catch((error) => log(`cleanup: could not ${step.what}: ${error instanceof Error ? error.message : error}`));
      }
    })();
    return this.done;
  }
}

/** Other work on the machine competes with the servers and the load generator for the same cores. */
function warnIfBusy(): void {
  const [lastMinute] = os.loadavg();
  const cores = os.cpus().length;
  if (lastMinute > cores / 2) log(`warning: load average is ${lastMinute.toFixed(2)} on ${cores} cores; the numbers will be lower than on an idle machine`);
}

/** ANALYZE of the whole benchmark database. */
async function analyze(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('analyze');
  } finally {
    await client.end();
  }
}

/** Gives the ceiling server the app's own storefront answers, read once through the app. */
async function loadCeiling(app: RunningServer, baseline: RunningServer, store: SeededStore): Promise<void> {
  const answers: Record<string, string> = {};
  for (const path of ceilingPaths(store)) {
    const res = await fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${store.storefrontToken}`, 'x-tenant-id': store.tenantId } });
    if (!res.ok) throw new Error(`the ceiling's answer ${path} could not be read: HTTP ${res.status}`);
    answers[path] = await res.text();
  }
  const res = await fetch(`${baseline.url}${CEILING_LOAD}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(answers) });
  if (!res.ok) throw new Error(`the ceiling could not be loaded: HTTP ${res.status}`);
}

const slug = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

async function measure(server: RunningServer, scenario: Scenario, load: LoadSettings, profileFile?: string): Promise<ScenarioResult> {
  // CPU is counted, and profiled, from the load's start: a scenario's preparation (carts to check out) is not its work.
  let before: CpuReading | undefined;
  const result = await runScenario(server.url, scenario, load, async () => {
    if (profileFile) {
      await server.startProfile();
      log(`${scenario.name}: profiling the load`);
    }
    before = await readCpu(server.pid);
  });
  const spent = cpuBetween(before!, await readCpu(server.pid));
  // The warm-up ran at the same pace: the measured seconds' share of the CPU is their share of the time.
  const share = load.durationSeconds / (load.durationSeconds + load.warmupSeconds);
  if (spent.server > 0) result.cpu = { server: spent.server * share, database: spent.database * share };
  if (profileFile) {
    await server.saveProfile(profileFile);
    log(`profile written to ${profileFile}; self time by owner:\n${await formatProfile(profileFile)}`);
  }
  return result;
}

async function benchmark(load: ReturnType<typeof loadSettings>, cleanup: Cleanup): Promise<boolean> {
  // createTestDatabase reads its admin URL from TEST_DATABASE_URL.
  if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
  warnIfBusy();

  log('creating the benchmark database');
  // A killed run's database is dropped by a later test run's global setup once it is stale.
  const database = await createTestDatabase(BENCH_PLUGINS);
  cleanup.add(`drop database ${database.name}`, () => database.drop());
  log(`database ${database.name}`);
  const machine = await describeMachine(database.url);

  const platformToken = `qhp_${randomBytes(32).toString('base64url')}`;
  const options: Omit<ServerOptions, 'port'> = {
    databaseUrl: database.url,
    poolMax: POOL_MAX,
    platformToken,
    logLevel: process.env.LOG_LEVEL || 'silent',
  };
  const servers = {} as Record<ServerKind, RunningServer>;
  for (const kind of ['app', 'baseline'] as const) {
    servers[kind] = await spawnServer(kind, { ...options, port: await freePort() });
    cleanup.add(`stop the ${kind} server`, servers[kind].stop);
    log(`${kind} server listening on ${servers[kind].url} (pid ${servers[kind].pid})`);
  }

  // A store with a past: as many orders placed before the statistics are taken as the placing floor's tables start with.
  log(`seeding ${PRODUCT_COUNT} products with 3 variants each, ${CART_COUNT} carts and ${HISTORY_ROWS} orders through the API`);
  const store = await seedStore(servers.app.url, platformToken, PRODUCT_COUNT, CART_COUNT, HISTORY_ROWS);
  // As autovacuum would within a minute of the seeding: the planner's statistics know the tables' sizes.
  await analyze(database.url);
  await loadCeiling(servers.app, servers.baseline, store);

  const profileDir = process.env.BENCH_PROFILE ? path.resolve(process.env.BENCH_PROFILE) : undefined;
  if (profileDir) await mkdir(profileDir, { recursive: true });
  // The baselines always run: every other row is a ratio to one of them.
  const chosen = scenarios(store).filter((s) => !load.only || s.target === 'baseline' || load.only.test(s.name));
  const rounds: ScenarioResult[][] = [];
  for (let round = 1; round <= load.runs; round++) {
    const results: ScenarioResult[] = [];
    for (const [i, scenario] of chosen.entries()) {
      log(`${load.runs > 1 ? `round ${round}/${load.runs}, ` : ''}${scenario.name}: ${load.warmupSeconds} s warm-up + ${load.durationSeconds} s`);
      const profileFile = profileDir ? path.join(profileDir, `${round}-${i + 1}-${slug(scenario.name)}.cpuprofile`) : undefined;
      results.push(await measure(servers[scenario.target], scenario, load, profileFile));
      await sleep(SETTLE_MS);
    }
    rounds.push(results);
  }

  console.log(`\n${formatMachine(machine, load)}\n`);
  for (const [n, results] of rounds.entries()) {
    if (rounds.length > 1) console.log(`\nRound ${n + 1} of ${rounds.length}\n`);
    console.log(formatResults(results, results[0])); // scenarios() lists the baseline first
    const flows = formatFlows(results, load);
    if (flows) console.log(`\n${flows}`);
  }
  if (rounds.length > 1) console.log(`\nMedians of ${rounds.length} rounds\n\n${formatMedians(rounds)}`);
  const sizing = formatSizing(rounds);
  if (sizing) console.log(`\nSizing: requests per CPU second of each piece${rounds.length > 1 ? ` (medians of ${rounds.length} rounds)` : ''}\n\n${sizing}`);
  const targets = formatTargets(rounds, TARGETS);
  if (targets) console.log(`\nTargets${rounds.length > 1 ? ` (medians of ${rounds.length} rounds)` : ''}\n\n${targets}`);
  const all = rounds.flat();
  const failures = formatFailures(all);
  if (failures) console.log(`\nFAILURES\n${failures}`);
  return !all.some(failed);
}

async function main(): Promise<void> {
  const cleanup = new Cleanup();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: cleaning up`);
      void cleanup.run().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
    });
  }
  try {
    const ok = await benchmark(loadSettings(), cleanup);
    if (!ok) log('some requests failed (see FAILURES above)');
    process.exitCode = ok ? 0 : 1;
  } catch (error) {
    log(`failed: ${error instanceof Error ? error.stack ?? error.message : error}`);
    process.exitCode = 1;
  } finally {
    await cleanup.run();
  }
}

await main();
