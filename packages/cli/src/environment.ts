import type { QhatuConfig } from '@qhatu/core';

/** The configuration from the environment; an invalid one fails with every problem listed (see errors.ts). */
export async function readConfig(env: NodeJS.ProcessEnv = process.env): Promise<QhatuConfig> {
  const { loadConfig } = await import('@qhatu/core');
  return loadConfig(env);
}

/** One-shot commands keep stdout for their result: logs go to stderr, warnings only unless LOG_LEVEL says otherwise. */
export async function commandLogger(config: QhatuConfig) {
  const { pino } = await import('pino');
  return pino({ level: process.env.LOG_LEVEL ? config.logLevel : 'warn' }, pino.destination(2));
}
