import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

/** One line the app logged, as pino writes it. */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export interface CapturedLogs {
  /** Give it to `createTestApp({ logger })`. */
  logger: Logger;
  /** Every line logged so far, oldest first. */
  lines: LogLine[];
  /** The lines at warning level or above (pino: 40 warn, 50 error, 60 fatal). */
  problems(): LogLine[];
}

/** A logger at `level` (default info) whose lines a test reads, e.g. to assert that a flow logged no error. */
export function captureLogs(level: pino.Level = 'info'): CapturedLogs {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return { logger: pino({ level }, sink), lines, problems: () => lines.filter((line) => line.level >= 40) };
}
