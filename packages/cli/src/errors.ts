/** A failure the person at the terminal can act on: printed as is, without a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly hints: string[] = [],
  ) {
    super(message);
    this.name = 'CliError';
  }
}

const DECORATOR_HINTS = [
  "Qhatu core is written with TypeScript's experimental decorators: the project's tsconfig.json must set",
  '"experimentalDecorators": true and include the sources of @qhatu/core, or set TSX_TSCONFIG_PATH to one that does',
];

interface Detailed {
  name?: string;
  message: string;
  problems?: string[];
  details?: Array<{ path?: string; message: string }>;
  code?: string;
  cause?: unknown;
}

/** The lines to print for anything a command throws; a stack only for bugs, and only with QHATU_DEBUG. */
export function describeFailure(error: unknown): string[] {
  if (error instanceof CliError) return [`error: ${error.message}`, ...error.hints.map((h) => `  ${h}`)];
  const e = (error ?? {}) as Detailed;
  if (e.name === 'ConfigError' && e.problems) {
    return ['error: the environment is not a valid configuration:', ...e.problems.map((p) => `  ${p}`)];
  }
  if (e.name === 'PluginLoadError') return [`error: ${e.message}`, '  check the plugins listed in qhatu.config.ts'];
  if (e.name === 'AppError') {
    // Core names fields as in its HTTP API (`body.slug`); here they are flags (`--slug`).
    const field = (path: string) => path.replace(/^body\./, '--').replaceAll('_', '-');
    return [`error: ${e.message}`, ...(e.details ?? []).map((d) => `  ${d.path ? `${field(d.path)}: ` : ''}${d.message}`)];
  }
  if (e.code === 'ECONNREFUSED' || (e.cause as Detailed | undefined)?.code === 'ECONNREFUSED') {
    return [`error: cannot reach the database (${e.message})`, '  check DATABASE_URL and that PostgreSQL is running'];
  }
  if (/decorators only work when experimental decorators are enabled/.test(e.message ?? '')) {
    return [`error: ${e.message}`, ...DECORATOR_HINTS];
  }
  const lines = [`error: ${e.message ?? String(error)}`];
  if (process.env.QHATU_DEBUG && error instanceof Error && error.stack) lines.push(error.stack);
  else lines.push('  set QHATU_DEBUG=1 to see the stack trace');
  return lines;
}
