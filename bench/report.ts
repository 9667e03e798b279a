import { readFile } from 'node:fs/promises';
import os from 'node:os';
import pg from 'pg';
import type { LoadSettings, ScenarioResult, Target } from './scenarios.js';

export interface MachineInfo {
  node: string;
  cpu: string;
  cpuCount: number;
  memoryGiB: number;
  system: string;
  /** 1/5/15-minute load averages when the run started: others' work on the machine skews numbers. */
  loadAverage: number[];
  postgres: string;
}

export async function describeMachine(databaseUrl: string): Promise<MachineInfo> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let postgres: string;
  try {
    postgres = (await client.query<{ version: string }>('select version()')).rows[0].version;
  } finally {
    await client.end();
  }
  const cpus = os.cpus();
  return {
    node: process.version,
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cpuCount: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    system: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
    postgres,
  };
}

export function formatMachine(machine: MachineInfo, load: LoadSettings): string {
  return [
    `Node        ${machine.node}`,
    `CPU         ${machine.cpu} × ${machine.cpuCount}`,
    `Memory      ${machine.memoryGiB} GiB`,
    `System      ${machine.system}`,
    `Load avg    ${machine.loadAverage.join(' / ')} (1/5/15 min, at start)`,
    `PostgreSQL  ${machine.postgres}`,
    `Load        ${load.connections} connections, ${load.durationSeconds} s measured after a ${load.warmupSeconds} s warm-up, per scenario`,
  ].join('\n');
}

const ratio = (value: number, base: number) => (base > 0 ? `${(value / base).toFixed(2)}×` : 'n/a');

/**
 * A Markdown table, readable in a terminal and pasteable into docs/benchmarks.md as is. Each row is
 * compared with the baseline it names (`compareWith`: writes with the write baseline), else `baseline`.
 */
/** A Markdown table: the first `left` columns left-aligned, the others (numbers) right-aligned. */
function table(header: string[], rows: string[][], left = 1): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => (i < left ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i < left ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export function formatResults(results: ScenarioResult[], fallback: ScenarioResult): string {
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'non-2xx', 'errors', 'req/s vs baseline', 'p99 vs baseline'];
  const baselineOf = (r: ScenarioResult) => results.find((b) => b.name === r.compareWith) ?? fallback;
  const rows = results.map((r) => {
    const baseline = baselineOf(r);
    return [
      r.name,
      r.requestsPerSecond.toFixed(0),
      r.p50Ms.toFixed(0),
      r.p99Ms.toFixed(0),
      String(r.completed),
      String(r.non2xx),
      String(r.errors),
      ratio(r.requestsPerSecond, baseline.requestsPerSecond),
      ratio(r.p99Ms, baseline.p99Ms),
    ];
  });
  return table(header, rows);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * Several rounds of the same scenarios (`BENCH_RUNS`): each scenario's req/s in every round, their
 * median, and the median of its per-round ratio to the baseline of that same round.
 */
export function formatMedians(rounds: ScenarioResult[][]): string {
  const header = ['scenario', ...rounds.map((_, i) => `run ${i + 1} req/s`), 'median req/s', 'median p99 ms', 'median vs baseline'];
  const rows = rounds[0].map((first, n) => {
    const each = rounds.map((round) => round[n]);
    const ratios = rounds.map((round) => {
      const r = round[n];
      const baseline = round.find((b) => b.name === r.compareWith) ?? round[0];
      return baseline.requestsPerSecond > 0 ? r.requestsPerSecond / baseline.requestsPerSecond : 0;
    });
    return [
      first.name,
      ...each.map((r) => r.requestsPerSecond.toFixed(0)),
      median(each.map((r) => r.requestsPerSecond)).toFixed(0),
      median(each.map((r) => r.p99Ms)).toFixed(0),
      `${median(ratios).toFixed(2)}×`,
    ];
  });
  return table(header, rows);
}

/** Chained flows: what one iteration made per second, from the same run (req/s divided by its steps). */
export function formatFlows(results: ScenarioResult[], load: LoadSettings): string {
  return results
    .filter((r) => r.flow)
    .map((r) => {
      const { unit, steps } = r.flow!;
      return `${r.name}: ${steps} HTTP requests per iteration; ${(r.requestsPerSecond / steps).toFixed(1)} ${unit}/s, ${Math.floor(r.completed / steps)} ${unit} in ${load.durationSeconds} s`;
    })
    .join('\n');
}

/**
 * What each piece spends on a request: the cores the server process and PostgreSQL kept busy, and
 * how many requests one core-second of each served (the app's scenarios; the baselines run no app).
 * Where a piece's cores stay under one while the other's near it, that other piece saturates first.
 */
export function formatSizing(rounds: ScenarioResult[][]): string {
  const measured = rounds[0].filter((r) => r.cpu).map((r) => r.name);
  if (measured.length === 0) return '';
  const header = ['scenario', 'req/s', 'server cores', 'PostgreSQL cores', 'req per server core-s', 'req per PostgreSQL core-s'];
  const rows = measured.map((name) => {
    const each = rounds.map((round) => round.find((r) => r.name === name)).filter((r): r is ScenarioResult => Boolean(r?.cpu));
    const seconds = (r: ScenarioResult) => r.completed / Math.max(r.requestsPerSecond, 1e-9);
    const cores = (r: ScenarioResult, piece: 'server' | 'database') => r.cpu![piece] / seconds(r);
    // A piece that kept less than a fiftieth of a core busy is not what serves the scenario: no rate.
    const perCore = (r: ScenarioResult, piece: 'server' | 'database') => (cores(r, piece) >= 0.02 ? r.completed / r.cpu![piece] : Infinity);
    const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '—');
    return [
      name,
      median(each.map((r) => r.requestsPerSecond)).toFixed(0),
      median(each.map((r) => cores(r, 'server'))).toFixed(2),
      median(each.map((r) => cores(r, 'database'))).toFixed(2),
      fmt(median(each.map((r) => perCore(r, 'server')))),
      fmt(median(each.map((r) => perCore(r, 'database')))),
    ];
  });
  return table(header, rows);
}

/** Why a scenario failed: status codes, socket errors and the first answers that were not 2xx. */
export function formatFailures(results: ScenarioResult[]): string {
  return results
    .filter(failed)
    .map((r) =>
      [
        `${r.name}: ${r.non2xx} non-2xx, ${r.errors} errors (${r.timeouts} timeouts), ${r.warmupFailures} failures in warm-up`,
        `  status codes: ${JSON.stringify(r.statusCodes)}`,
        ...r.failureSamples.map((s) => `  ${s}`),
      ].join('\n'),
    )
    .join('\n');
}

export function failed(result: ScenarioResult): boolean {
  return result.non2xx > 0 || result.errors > 0 || result.warmupFailures > 0;
}

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string } }>;
  samples: number[];
  timeDeltas: number[];
}

/** Who a profile frame's code belongs to: an npm package, a Qhatu package, Node itself or V8. */
function ownerOf({ functionName, url }: { functionName: string; url: string }): string {
  const npm = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (npm) return npm[1];
  const local = /^file:\/\/.*\/(packages\/[^/]+|bench)\//.exec(url);
  if (local) return local[1];
  if (url.startsWith('node:')) return 'node internals';
  if (!url && functionName.startsWith('(')) return functionName;
  return url ? url : `native ${functionName || '(anonymous)'}`;
}

/** The share of sampled time spent in each owner's own code (self time), largest first. */
export async function formatProfile(file: string, top = 10): Promise<string> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const owners = new Map(profile.nodes.map((n) => [n.id, ownerOf(n.callFrame)]));
  const time = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    total += delta;
    const owner = owners.get(id) ?? '?';
    time.set(owner, (time.get(owner) ?? 0) + delta);
  });
  return [...time]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([owner, t]) => `  ${((t / total) * 100).toFixed(1).padStart(5)} %  ${owner}`)
    .join('\n');
}

/**
 * The ratios the platform holds itself to (`TARGETS`), from the median of each round's ratio: the
 * scenario's req/s over the one it is held against, and whether it reaches the minimum.
 */
export function formatTargets(rounds: ScenarioResult[][], targets: Target[]): string {
  const rows: string[][] = [];
  for (const target of targets) {
    const ratios = rounds.flatMap((round) => {
      const r = round.find((x) => x.name === target.scenario);
      const against = round.find((x) => x.name === target.against);
      return r && against && against.requestsPerSecond > 0 ? [r.requestsPerSecond / against.requestsPerSecond] : [];
    });
    if (ratios.length === 0) continue;
    const value = median(ratios);
    rows.push([target.scenario, target.against, `${value.toFixed(2)}×`, `≥ ${target.min}×`, value >= target.min ? 'met' : 'NOT MET']);
  }
  if (rows.length === 0) return '';
  const header = ['scenario', 'against', 'ratio', 'target', ''];
  return table(header, rows, 2);
}
