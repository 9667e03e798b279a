import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { NotificationRouter } from './embedded-notifications.js';

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
 * It is one session shared by every connection: fine for trying and developing. PGlite is loaded
 * here, not with the platform's modules: a process on a real server never loads it.
 */
export async function startEmbeddedDatabase(dataDir: string): Promise<EmbeddedDatabase> {
  const dir = path.resolve(dataDir, 'pgdata');
  const [{ PGlite }, { btree_gin }, { pg_trgm }, { unaccent }, { PGLiteSocketServer }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/contrib/btree_gin'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
    import('@electric-sql/pglite/contrib/unaccent'),
    import('@electric-sql/pglite-socket'),
    mkdir(dir, { recursive: true }),
  ]);
  // The extensions plugins' migrations may create for indexed search, as on a real server.
  const db = await PGlite.create(dir, { extensions: { pg_trgm, unaccent, btree_gin } });
  // The job queue's functions live in their own schema; its driver's startup search_path is ignored here.
  await db.exec('set search_path to public, bullmq');
  const host = '127.0.0.1';
  const port = await freePort(host);
  const server = new PGLiteSocketServer({ db, host, port, maxConnections: 32 });
  keepExtendedQueriesTogether(server, db);
  await server.start();
  return {
    url: `postgres://postgres@${host}:${port}/postgres`,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}

/** What `keepExtendedQueriesTogether` reaches inside pglite-socket's query queue. */
interface QueuedMessage {
  handlerId: number;
  message: Uint8Array;
  timestamp: number;
  resolve(size: number): void;
  reject(error: Error): void;
  onData(data: Uint8Array): void;
}
interface SocketHandler {
  handlerId: number;
  socket: { writable: boolean; write(data: Uint8Array): unknown } | null;
}
interface QueryQueue {
  queue: QueuedMessage[];
  processing: boolean;
  lastHandlerId: number | null;
  processQueue(): Promise<void>;
  clearQueueForHandler(handlerId: number): void;
}

/** Parse, Bind, Describe, Execute, Close, Flush: an exchange that runs until the connection's Sync. */
const EXTENDED = new Set([0x50, 0x42, 0x44, 0x45, 0x43, 0x48]);
const SYNC = 0x53; // 'S'
const TERMINATE = 0x58; // 'X'

/**
 * pglite-socket queues each protocol message of each connection on its own. Outside a
 * transaction, the extended-protocol messages of two connections (Parse, Bind, Describe,
 * Execute, then Sync) then interleave, and one connection's Bind meets the other's unnamed
 * statement ("bind message supplies 15 parameters, but prepared statement requires 13"): the
 * job queue's and the app's statements broke each other under load. Here a connection that has
 * begun an extended-protocol exchange keeps PGlite until its Sync, as it keeps it for a whole
 * transaction already. A connection that goes away mid-exchange releases it. Notifications in
 * any answer go to the connections that listen for them (`NotificationRouter`).
 */
export function keepExtendedQueriesTogether(server: PGLiteSocketServer, db: PGlite): void {
  const { queryQueue: queue, handlers } = server as unknown as { queryQueue: QueryQueue; handlers: Set<SocketHandler> };
  const notifications = new NotificationRouter((handlerId, data) => {
    for (const handler of handlers) if (handler.handlerId === handlerId && handler.socket?.writable) handler.socket.write(data);
  });
  let owner: number | null = null;
  const clear = queue.clearQueueForHandler.bind(queue);
  queue.clearQueueForHandler = (handlerId: number) => {
    if (owner === handlerId) owner = null;
    notifications.forget(handlerId);
    clear(handlerId);
    if (!queue.processing) void queue.processQueue();
  };
  queue.processQueue = async function processQueue(this: QueryQueue): Promise<void> {
    if (this.processing || this.queue.length === 0) return;
    this.processing = true;
    try {
      while (this.queue.length > 0) {
        // The connection in a transaction or mid-exchange goes on; the others wait for it.
        const holder = owner ?? (db.isInTransaction() ? this.lastHandlerId : null);
        const index = holder === null ? 0 : this.queue.findIndex((q) => q.handlerId === holder);
        if (index === -1) break;
        const query = this.queue.splice(index, 1)[0]!;
        const type = query.message[0]!;
        notifications.noteQuery(query.handlerId, query.message);
        let size = 0;
        try {
          await db.runExclusive(() => db.execProtocolRawStream(query.message, {
            onRawData: (data: Uint8Array) => {
              size += data.length;
              const own = notifications.answer(query.handlerId, data);
              if (own.length > 0) query.onData(own);
            },
          }));
        } catch (error) {
          if (owner === query.handlerId) owner = null;
          query.reject(error as Error);
          continue;
        }
        if (EXTENDED.has(type)) owner = query.handlerId;
        else if ((type === SYNC || type === TERMINATE) && owner === query.handlerId) owner = null;
        this.lastHandlerId = query.handlerId;
        query.resolve(size);
      }
    } finally {
      this.processing = false;
    }
  };
}
