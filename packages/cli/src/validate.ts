import type { ZodType } from 'zod';
import { CliError } from './errors.js';

const flagOf = (key: PropertyKey | undefined) => `--${String(key ?? '').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/**
 * Parses a command's options with a zod schema; every problem is named by its flag
 * (`expiresAt` → `--expires-at`) unless `labels` names it otherwise (e.g. a positional argument).
 */
export function parseOptions<T>(schema: ZodType<T>, values: unknown, labels: Record<string, string> = {}): T {
  const parsed = schema.safeParse(values);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const key = issue.path[0];
    const label = typeof key === 'string' && labels[key] ? labels[key] : flagOf(key);
    return `${label}: ${issue.message}`;
  });
  throw new CliError(problems.length === 1 ? `invalid input, ${problems[0]}` : 'invalid input:', problems.length === 1 ? [] : problems);
}
