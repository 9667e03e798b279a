/**
 * CPU time of the processes a scenario loads, read from Linux's /proc: the API (or baseline) server
 * and every PostgreSQL process (backends, the WAL writer, checkpoints). Sizing divides a scenario's
 * requests by them: requests per core-second of the API process and of the database.
 */
import { readdir, readFile } from 'node:fs/promises';

/** Linux's USER_HZ: /proc counts CPU time in hundredths of a second. */
const TICKS_PER_SECOND = 100;

/** User plus system CPU seconds of process `pid` so far (its own threads; not its children). */
async function secondsOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  // The command name is in parentheses and may hold spaces: the fields count from after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name and state.
  return fields.length > 13 ? (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND : 0;
}

/** Every running process named `postgres`, by pid. */
async function postgresPids(): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const name = await readFile(`/proc/${entry}/comm`, 'utf8').catch(() => '');
    if (name.trim() === 'postgres') pids.push(Number(entry));
  }
  return pids;
}

export interface CpuReading {
  server: number;
  /** Per PostgreSQL pid: a backend that ends between two readings takes its seconds with it (the pools keep theirs open). */
  database: Map<number, number>;
}

export async function readCpu(serverPid: number): Promise<CpuReading> {
  const database = new Map<number, number>();
  for (const pid of await postgresPids()) database.set(pid, await secondsOf(pid));
  return { server: await secondsOf(serverPid), database };
}

/** CPU seconds spent between two readings, by the server and by PostgreSQL (processes present at both, or started since). */
export function cpuBetween(before: CpuReading, after: CpuReading): { server: number; database: number } {
  let database = 0;
  for (const [pid, seconds] of after.database) database += seconds - (before.database.get(pid) ?? 0);
  return { server: after.server - before.server, database };
}
