/** What a command prints: results on stdout, notes and errors on stderr, so `--json` output stays clean. */
export function print(text = ''): void {
  process.stdout.write(`${text}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function note(text: string): void {
  process.stderr.write(`${text}\n`);
}

/** Waits until what was written to stdout and stderr has left the process (before process.exit). */
export async function flushOutput(): Promise<void> {
  await Promise.all([process.stdout, process.stderr].map((s) => new Promise<void>((resolve) => s.write('', () => resolve()))));
}

/** `postgres://user:secret@host/db` → `postgres://user:***@host/db`, for printing. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unparseable URL)';
  }
}
