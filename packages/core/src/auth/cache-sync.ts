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

/** What a process does with the messages about one kind of cached data (a topic, e.g. `catalog`). */
export type CacheTopicHandlers = CacheSyncHandlers;

/**
 * Tells every API process that a tenant's tokens changed (a key revoked, a staff member disabled,
 * a store suspended). PostgreSQL `LISTEN/NOTIFY` on the application's database, or Redis pub/sub
 * when `REDIS_URL` is set. Every process that hears a message drops the tenant's cached lookups
 * and acknowledges it; `announce` resolves once every listening process has (at most a second),
 * so the request that revoked answers after the others stopped trusting what they had cached.
 */
export interface CacheSync {
  readonly listening: boolean;
  /**
   * True when messages the database sends (`NOTIFY` on {@link CACHE_CHANNEL}, e.g. from a trigger,
   * delivered at commit) reach this process: then a change can announce itself in its transaction.
   */
  readonly hearsDatabase: boolean;
  start(handlers: CacheSyncHandlers): Promise<void>;
  /**
   * Another cache rides on the same listener: its messages carry `topic`, and it is told when the
   * listener is lost and back. Register before or after `start`.
   */
  join(topic: string, handlers: CacheTopicHandlers): void;
  /** Tells every process that `tenantId`'s data of `topic` (tokens when absent) changed; see `announce` above. */
  announce(tenantId: string, topic?: string): Promise<void>;
  /** Stops listening (the app closes). */
  close(): Promise<void>;
}

export const CACHE_CHANNEL = 'qhatu_token_cache';
// A database trigger may also `pg_notify(CACHE_CHANNEL, 'ver:<topic>:<tenant>:<version>')` in the
// changing transaction: delivered at commit, so it needs no acknowledgement.
/** The name the listening connections carry, by which PostgreSQL counts them. */
export const CACHE_LISTENER_NAME = 'qhatu-token-cache';
const ACK_WAIT_MS = 1000;
const TOKENS = 'tokens';
const RETRY_MAX_MS = 5000;

interface Waiter {
  needed: number;
  heard: number;
  done: () => void;
}

abstract class BaseSync implements CacheSync {
  protected handlers?: CacheSyncHandlers;
  private readonly topics = new Map<string, CacheTopicHandlers>();
  abstract readonly hearsDatabase: boolean;
  protected readonly origin = randomUUID();
  private seq = 0;
  private readonly waiting = new Map<number, Waiter>();
  protected closed = false;
  listening = false;

  constructor(protected readonly logger: Logger) {}

  abstract start(handlers: CacheSyncHandlers): Promise<void>;
  /** Sends a message to every listener; answers how many listeners it reaches (this one included). */
  protected abstract send(payload: string): Promise<number>;
  abstract close(): Promise<void>;

  join(topic: string, handlers: CacheTopicHandlers): void {
    if (topic === TOKENS || topic.includes(':')) throw new Error(`"${topic}" cannot name a cache topic`);
    this.topics.set(topic, handlers);
  }

  private handlersOf(topic: string | undefined): CacheSyncHandlers | undefined {
    return !topic || topic === TOKENS ? this.handlers : this.topics.get(topic);
  }

  async announce(tenantId: string, topic?: string): Promise<void> {
    const seq = ++this.seq;
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    const timer = setTimeout(() => finish(), ACK_WAIT_MS);
    timer.unref();
    const finish = () => {
      clearTimeout(timer);
      this.waiting.delete(seq);
      settle();
    };
    const waiter: Waiter = { needed: Infinity, heard: 0, done: finish };
    if (this.listening) this.waiting.set(seq, waiter);
    try {
      const reached = await this.send(`inv:${this.origin}:${seq}:${tenantId}${topic && topic !== TOKENS ? `:${topic}` : ''}`);
      if (!this.listening) return finish();
      waiter.needed = reached;
      if (waiter.heard >= waiter.needed) finish();
    } catch (err) {
      finish();
      this.logger.error({ err, tenantId, topic: topic ?? TOKENS }, 'could not tell the other processes that cached data changed');
      return;
    }
    await settled;
  }

  protected received(payload: string): void {
    if (payload.startsWith('ver:')) {
      // From the database, sent in the changing transaction: `ver:<topic>:<tenant>:<version>`; no answer.
      const [, changedTopic, store] = payload.split(':');
      if (changedTopic && store) this.handlersOf(changedTopic)?.forget(store);
      return;
    }
    const [type, origin, seq, tenantId, topic] = payload.split(':');
    if (type === 'inv' && tenantId) {
      this.handlersOf(topic)?.forget(tenantId);
      if (origin === this.origin) this.heard(Number(seq));
      else this.send(`ack:${origin}:${seq}`).catch((err) => this.logger.warn({ err }, 'could not acknowledge a token cache message'));
    } else if (type === 'ack' && origin === this.origin) {
      this.heard(Number(seq));
    }
  }

  private heard(seq: number): void {
    const waiter = this.waiting.get(seq);
    if (!waiter) return;
    waiter.heard += 1;
    if (waiter.heard >= waiter.needed) waiter.done();
  }

  protected markLost(err?: unknown): void {
    if (this.listening) this.logger.warn({ err }, 'token cache listener lost; the cache is not trusted until it is back');
    this.listening = false;
    this.handlers?.lost();
    for (const topic of this.topics.values()) topic.lost();
  }

  protected markBack(): void {
    this.listening = true;
    this.handlers?.resynced();
    for (const topic of this.topics.values()) topic.resynced();
  }
}

/** LISTEN on a connection of its own; on loss, retries with backoff and resyncs when back. */
export class PostgresCacheSync extends BaseSync {
  readonly hearsDatabase = true;
  private client?: pg.Client;
  private retryMs = 100;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly databaseUrl: string,
    /** NOTIFY on the application's pool; answers how many listeners the database has. */
    private readonly notify: (payload: string) => Promise<number>,
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
    const client = new pg.Client({ connectionString: this.databaseUrl, application_name: CACHE_LISTENER_NAME });
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

  protected send(payload: string): Promise<number> {
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
  readonly hearsDatabase = false;
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

  protected async send(payload: string): Promise<number> {
    if (this.publisher.status === 'wait') await this.publisher.connect();
    // PUBLISH answers how many subscribers received the message.
    return this.publisher.publish(this.channel, payload);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    this.subscriber.disconnect();
    this.publisher.disconnect();
  }
}
