import { Worker } from 'node:worker_threads';
import type { EmbeddedDatabase } from './embedded.js';

/** Where the embedded database keeps its data when `QHATU_DATA_DIR` does not say. */
export const DEFAULT_DATA_DIR = './.qhatu';

/**
 * The data folder of the embedded database the environment asks for, or undefined when it names a
 * server (`DATABASE_URL`): what `loadConfig` decides, read without loading the rest of the platform.
 */
export function embeddedDataDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.DATABASE_URL ? undefined : env.QHATU_DATA_DIR || DEFAULT_DATA_DIR;
}

/**
 * `startEmbeddedDatabase` in a thread of its own (its `close` runs once, however many owners call it): PGlite's start (its WebAssembly compiled, the
 * data folder opened) runs beside the main thread's loading of the platform's modules, and its
 * statements beside the app's requests. The database is reached over its loopback port as before.
 * The compiled packages only: run from the TypeScript sources (tests, tsx), it starts in this thread.
 */
export function startEmbeddedDatabaseInThread(dataDir: string): Promise<EmbeddedDatabase> {
  if (!import.meta.url.endsWith('.js')) {
    return import('./embedded.js').then(async ({ startEmbeddedDatabase }) => {
      const database = await startEmbeddedDatabase(dataDir);
      let closing: Promise<void> | undefined;
      return { url: database.url, close: () => (closing ??= database.close()) };
    });
  }
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./embedded-worker.js', import.meta.url), { workerData: { dataDir } });
    const failed = (error: Error) => reject(error);
    const ended = (code: number) => reject(new Error(`the embedded database's thread ended (${code}) before the database started`));
    worker.once('error', failed);
    worker.once('exit', ended);
    worker.once('message', (message: { url?: string; error?: string }) => {
      worker.off('error', failed);
      worker.off('exit', ended);
      if (message.error !== undefined || message.url === undefined) {
        void worker.terminate();
        reject(new Error(message.error ?? 'the embedded database did not start'));
        return;
      }
      let closing: Promise<void> | undefined;
      resolve({
        url: message.url,
        // Once, however many owners ask: the thread stops its server and PGlite, then ends.
        close: () =>
          (closing ??= new Promise<void>((done) => {
            worker.once('exit', () => done());
            worker.postMessage('close');
          })),
      });
    });
  });
}
