import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CliError } from './errors.js';

interface Holder {
  pid: number;
  command: string;
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
          'the embedded database serves one process at a time: stop that process first,',
          'or, while `qhatu start` runs, use its HTTP API (POST /api/v1/tenants, POST /api/v1/tenants/:id/api-keys)',
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
