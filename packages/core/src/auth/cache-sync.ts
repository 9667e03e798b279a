import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { Logger } from 'pino';

/** What a process does with the messages of the others. */
export interface CacheSyncHandlers {
  /** Another process (or this one) changed the tokens of `tenantId`: drop their cached lookups. */
  forget(tenantId: string): void;
  /** The listener was lost: cached lookups may be stale until `resynced`. */
  lost(): void;
  /** The listener is back: forget everything cached and trust the cache again. */
  resynced(): void;
}

/**
 * Tells every API process that a tenant's tokens changed (a key revoked, a staff member disabled,
 * a store suspended). PostgreSQL `LISTEN/NOTIFY` on the application's database, or Redis pub/sub
 * when `REDIS_URL` is set. `announce` resolves once this process's own listener heard the
 * message back (at most a second), so the request that revoked answers after the others were told.
 */
export interface CacheSync {
  readonly listening: boolean;
  start(handlers: CacheSyncHandlers): Promise<void>;
  announce(tenantId: string): Promise<void>;
  /** The listener's connection dropped on purpose (tests): behaves as a lost connection. */
  close(): Promise<void>;
}

export const CACHE_CHANNEL = 'qhatu_token_cache';
const ECHO_WAIT_MS = 1000;
const RETRY_MAX_MS = 5000;

abstract class BaseSync implements CacheSync {
  protected handlers?: CacheSyncHandlers;
  protected readonly origin = randomUUID();
  private seq = 0;
  private readonly waiting = new Map<number, () => void>();
  protected closed = false;
  listening = false;

  constructor(protected readonly logger: Logger) {}

  abstract start(handlers: CacheSyncHandlers): Promise<void>;
  protected abstract send(payload: string): Promise<void>;
  abstract close(): Promise<void>;

  async announce(tenantId: string): Promise<void> {
    const seq = ++this.seq;
    const heard = this.listening ? new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(seq);
        resolve();
      }, ECHO_WAIT_MS);
      timer.unref();
      this.waiting.set(seq, () => {
        clearTimeout(timer);
        resolve();
      });
    }) : Promise.resolve();
    try {
      await this.send(`${this.origin}:${seq}:${tenantId}`);
    } catch (err) {
      this.waiting.get(seq)?.();
      this.logger.error({ err, tenantId }, 'could not tell the other processes that tokens changed');
      return;
    }
    await heard;
  }

  protected received(payload: string): void {
    const [origin, seq, tenantId] = payload.split(':');
    if (tenantId) this.handlers?.forget(tenantId);
    if (origin === this.origin) {
      const done = this.waiting.get(Number(seq));
      this.waiting.delete(Number(seq));
      done?.();
    }
  }

  protected markLost(err?: unknown): void {
    if (this.listening) this.logger.warn({ err }, 'token cache listener lost; the cache is not trusted until it is back');
    this.listening = false;
    this.handlers?.lost();
  }

  protected markBack(): void {
    this.listening = true;
    this.handlers?.resynced();
  }
}

/** LISTEN on a connection of its own; on loss, retries with backoff and resyncs when back. */
export class PostgresCacheSync extends BaseSync {
  private client?: pg.Client;
  private retryMs = 100;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly databaseUrl: string,
    private readonly notify: (payload: string) => Promise<void>,
    logger: Logger,
  ) {
    super(logger);
  }

  async start(handlers: CacheSyncHandlers): Promise<void> {
    this.handlers = handlers;
    await this.connect();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.databaseUrl, application_name: 'qhatu-token-cache' });
    let failed = false;
    const fail = (err?: unknown) => {
      if (failed || this.closed) return;
      failed = true;
      if (this.client === client) this.client = undefined;
      client.end().catch(() => undefined);
      this.markLost(err);
      this.timer = setTimeout(() => void this.connect(), this.retryMs);
      this.timer.unref();
      this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    };
    client.on('error', fail);
    client.on('end', () => fail());
    client.on('notification', (message) => {
      if (message.channel === CACHE_CHANNEL && message.payload) this.received(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CACHE_CHANNEL}`);
    } catch (err) {
      fail(err);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = 100;
    this.markBack();
  }

  protected send(payload: string): Promise<void> {
    return this.notify(payload);
  }

  /** The listener's backend process id (tests end it to show what a lost listener does). */
  get backendPid(): number | undefined {
    return (this.client as unknown as { processID?: number } | undefined)?.processID;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    clearTimeout(this.timer);
    await this.client?.end().catch(() => undefined);
  }
}

/** Redis pub/sub: a subscriber connection and the publishing one; ioredis reconnects by itself. */
export class RedisCacheSync extends BaseSync {
  private readonly subscriber: Redis;
  private readonly publisher: Redis;
  private readonly channel: string;
  private started = false;

  constructor(redisUrl: string, prefix: string, logger: Logger) {
    super(logger);
    this.channel = `${prefix}:${CACHE_CHANNEL}`;
    this.subscriber = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: null, autoResubscribe: false });
    this.publisher = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  }

  async start(handlers: CacheSyncHandlers): Promise<void> {
    this.handlers = handlers;
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.channel) this.received(message);
    });
    this.subscriber.on('error', (err) => this.markLost(err));
    this.subscriber.on('close', () => {
      if (!this.closed) this.markLost();
    });
    this.subscriber.on('ready', () => {
      // After a reconnection: subscribe again, then drop what may have been missed.
      if (this.started && !this.closed && !this.listening) void this.subscribe();
    });
    await this.subscriber.connect();
    await this.subscribe();
    this.started = true;
  }

  private async subscribe(): Promise<void> {
    try {
      await this.subscriber.subscribe(this.channel);
      this.markBack();
    } catch (err) {
      this.markLost(err);
    }
  }

  protected async send(payload: string): Promise<void> {
    if (this.publisher.status === 'wait') await this.publisher.connect();
    await this.publisher.publish(this.channel, payload);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    this.subscriber.disconnect();
    this.publisher.disconnect();
  }
}
