import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedDatabase {
  url: string;
  close(): Promise<void>;
}

async function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * PostgreSQL in WASM (PGlite) with its data in `<dataDir>/pgdata`, served on a loopback
 * port so that the same drivers (MikroORM, BullMQ) connect to it as to a real server.
 * It is one session shared by every connection: fine for trying and developing.
 */
export async function startEmbeddedDatabase(dataDir: string): Promise<EmbeddedDatabase> {
  const dir = path.resolve(dataDir, 'pgdata');
  await mkdir(dir, { recursive: true });
  const db = await PGlite.create(dir);
  // The job queue's functions live in their own schema; its driver's startup search_path is ignored here.
  await db.exec('set search_path to public, bullmq');
  const host = '127.0.0.1';
  const port = await freePort(host);
  const server = new PGLiteSocketServer({ db, host, port, maxConnections: 32 });
  await server.start();
  return {
    url: `postgres://postgres@${host}:${port}/postgres`,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}
