import { AsyncSlot } from '../async-slot.js';

/**
 * What one attempt of a transaction did that decides whether it may run again after a lost
 * connection or a serialization failure (decision 0051).
 */
export interface Attempt {
  /** COMMIT went out: a connection lost from then on leaves the outcome unknown. */
  commitSent: boolean;
  /** What BEGIN or COMMIT failed with, when one did (knex then fails what follows with "already complete"). */
  controlFailure?: unknown;
  /** The body did something the rollback does not undo (queued a job, sent mail, committed a transaction of its own). */
  leftDatabase: boolean;
}

const attempts = new AsyncSlot<Attempt>('qhatu.transaction-attempt');

/** The attempt of the transaction running this call, if any. */
export function currentAttempt(): Attempt | undefined {
  return attempts.get();
}

/**
 * Tells the transaction running this call (if any) that its body did something a rollback does
 * not undo (called a provider, queued a job elsewhere, sent a message): a lost connection then
 * answers 503 instead of running the body again.
 */
export function leavesDatabase(): void {
  const attempt = attempts.get();
  if (attempt) attempt.leftDatabase = true;
}

/** How many times a transaction runs at most, the first time included. */
export const MAX_ATTEMPTS = 3;
const BACKOFF_MS = 25;

// PostgreSQL's admin shutdown, crash shutdown and "cannot connect now", and the socket's own failures.
const LOST_CODES = new Set(['57P01', '57P02', '57P03', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);
const LOST_MESSAGE = /connection terminated|not queryable|connection ended unexpectedly|terminating connection/i;
const SERIALIZATION_CODES = new Set(['40001', '40P01']);

function codeOf(error: unknown): string | undefined {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = e?.code ?? e?.cause?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The database connection went away (terminated, reset, refused): nothing of the transaction after that point happened. */
export function isConnectionLost(error: unknown): boolean {
  const code = codeOf(error);
  if (code && (LOST_CODES.has(code) || code.startsWith('08'))) return true;
  return error instanceof Error && LOST_MESSAGE.test(error.message);
}

/** PostgreSQL rolled the transaction back to keep it serializable (40001) or to break a deadlock (40P01). */
export function isSerializationFailure(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && SERIALIZATION_CODES.has(code);
}

/** A failure that says nothing about the request: the same request may succeed a moment later. */
export function isTransient(error: unknown): boolean {
  return isSerializationFailure(error) || isConnectionLost(error);
}

/** The driver refused to send the statement (its connection had already failed): the server never saw it. */
export function neverSent(error: unknown): boolean {
  return error instanceof Error && /is not queryable/.test(error.message);
}

const unknownOutcomes = new WeakSet<object>();

/** The connection was lost once COMMIT had gone out: the transaction may have been applied, or not. */
export function outcomeUnknown(error: unknown): boolean {
  return typeof error === 'object' && error !== null && unknownOutcomes.has(error);
}

/**
 * Whether an attempt that failed with `error` may run again: its body only touched the database,
 * and either the connection was lost before COMMIT went out, or PostgreSQL answered with a
 * serialization failure (an answer: the transaction, COMMIT included, was rolled back).
 */
function repeatable(error: unknown, attempt: Attempt): boolean {
  if (attempt.leftDatabase) return false;
  if (isSerializationFailure(error)) return true;
  return !attempt.commitSent && isConnectionLost(error);
}

/**
 * Runs one transaction through `run`, again (up to MAX_ATTEMPTS in all, after a short jittered
 * pause) when an attempt failed in a way that is safe to repeat; otherwise its error is thrown,
 * marked when its outcome is unknown. A transaction that commits inside another's body is
 * something that body's rollback does not undo: the enclosing attempt is told so.
 */
export async function retrying<T>(run: (attempt: Attempt) => Promise<T>, onRetry?: (error: unknown) => void): Promise<T> {
  const enclosing = attempts.get();
  for (let n = 1; ; n++) {
    const attempt: Attempt = { commitSent: false, leftDatabase: false };
    try {
      const result = await attempts.run(attempt, () => run(attempt));
      if (enclosing) enclosing.leftDatabase = true;
      return result;
    } catch (caught) {
      const error = attempt.controlFailure ?? caught;
      if (n >= MAX_ATTEMPTS || !repeatable(error, attempt)) {
        if (attempt.commitSent && isConnectionLost(error) && typeof error === 'object' && error !== null) unknownOutcomes.add(error);
        throw error;
      }
      onRetry?.(error);
      await pause(n);
    }
  }
}

/** A read-only transaction: always safe to run again after a transient failure. */
export async function retryingRead<T>(run: () => Promise<T>, onRetry?: (error: unknown) => void): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await run();
    } catch (error) {
      if (n >= MAX_ATTEMPTS || !isTransient(error)) throw error;
      onRetry?.(error);
      await pause(n);
    }
  }
}

/** 25 ms, then 50 ms, each ±50 %: attempts that failed together do not come back together. */
function pause(n: number): Promise<void> {
  const ms = BACKOFF_MS * 2 ** (n - 1) * (0.5 + Math.random());
  return new Promise((resolve) => setTimeout(resolve, ms));
}
