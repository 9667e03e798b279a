import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { QhatuConfig } from '@qhatu/core';
import { CliError } from './errors.js';

interface Holder {
  pid: number;
  command: string;
  /** Where `qhatu start` serves its embedded database to other processes (loopback only). */
  databaseUrl?: string;
  /** The running store's own address, for the links commands beside it hand out. */
  publicUrl?: string;
}

/** A `qhatu start` serving the data folder: its database and its address. */
export interface RunningStore {
  databaseUrl: string;
  publicUrl?: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holderOf(file: string): Holder | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Holder;
  } catch {
    return undefined;
  }
}

/**
 * The embedded database is a single process's files: two processes opening it corrupt it.
 * Holds `<dataDir>/qhatu.lock` while a command uses it; a lock left by a dead process is taken over.
 */
export function lockDataDir(dataDir: string, command: string): () => void {
  const dir = path.resolve(dataDir);
  const file = path.join(dir, 'qhatu.lock');
  mkdirSync(dir, { recursive: true });
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, JSON.stringify({ pid: process.pid, command }), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      const holder = holderOf(file);
      if (holder && holder.pid !== process.pid && alive(holder.pid)) {
        throw new CliError(`the embedded database in ${dir} is in use by "qhatu ${holder.command}" (pid ${holder.pid})`, [
          'its files are opened by one process at a time: wait for that command to finish, or stop it',
          '(beside a running `qhatu start`, the one-shot commands reach its database through it; a second start or worker cannot)',
        ]);
      }
      unlinkSync(file);
    }
  }
  const release = () => {
    if (holderOf(file)?.pid === process.pid) unlinkSync(file);
    process.off('exit', release);
  };
  // A forced exit (second Ctrl+C) skips the normal release.
  process.on('exit', release);
  return release;
}

/** `qhatu start` tells other commands where its embedded database answers and where it serves, so they can work beside it. */
export function shareDatabase(dataDir: string, databaseUrl: string, publicUrl: string): void {
  const file = path.join(path.resolve(dataDir), 'qhatu.lock');
  const holder = holderOf(file);
  if (holder?.pid === process.pid) writeFileSync(file, JSON.stringify({ ...holder, databaseUrl, publicUrl }));
}

/** The `qhatu start` running on this data folder, if there is one. */
export function runningStore(dataDir: string): RunningStore | undefined {
  const holder = holderOf(path.join(path.resolve(dataDir), 'qhatu.lock'));
  if (!holder?.databaseUrl || holder.pid === process.pid || !alive(holder.pid)) return undefined;
  if (!/^postgres:\/\/[^@]+@127\.0\.0\.1:\d+\/postgres$/.test(holder.databaseUrl)) return undefined;
  return { databaseUrl: holder.databaseUrl, publicUrl: holder.publicUrl };
}

/**
 * The database a one-shot command works on: `DATABASE_URL`; else the embedded database of a
 * running `qhatu start` (through the port it serves); else the data folder itself, held while
 * the command runs (`release`).
 */
export function oneShotDatabase(config: QhatuConfig, command: string): { databaseUrl?: string; store?: RunningStore; release?: () => void } {
  if (config.databaseUrl) return { databaseUrl: config.databaseUrl };
  const store = runningStore(config.dataDir);
  if (store) return { databaseUrl: store.databaseUrl, store };
  return { release: lockDataDir(config.dataDir, command) };
}
