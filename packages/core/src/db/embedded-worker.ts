import { parentPort, workerData } from 'node:worker_threads';
import { startEmbeddedDatabase } from './embedded.js';

// The embedded database's own thread (see `startEmbeddedDatabaseInThread`): it starts the database,
// answers its address, and on 'close' stops it; the thread then ends.
const port = parentPort!;
try {
  const database = await startEmbeddedDatabase((workerData as { dataDir: string }).dataDir);
  port.once('message', () => {
    void database.close().finally(() => port.close());
  });
  port.postMessage({ url: database.url });
} catch (error) {
  port.postMessage({ error: error instanceof Error ? error.message : String(error) });
}
