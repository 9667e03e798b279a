import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import type { CacheSync } from '../auth/cache-sync.js';

/** `QHATU_CACHE` and `QHATU_CACHE_MAX_MB`. */
export interface ReadCacheSettings {
  enabled: boolean;
  maxBytes: number;
}

/** An answer kept as it was sent: the serialized body and its entity tag. */
export interface CachedAnswer {
  readonly body: string;
  readonly etag: string;
  /** The body gzipped, when the cache keeps it so (a large answer): a caller that accepts gzip may send it as it is. */
  readonly gzip?: Buffer;
  /** The body as UTF-8 bytes, when the cache keeps it so: written as it is, with no encoding. */
  readonly bytes?: Buffer;
  /** The version of the data the answer was made from, when its filler named one (an answer checked against the database's version). */
  readonly version?: string;
}

/** An answer as the cache holds it: a large body gzipped (JSON shrinks to a fifth or less), a small one as it is. */
interface Kept {
  /** The answer given for it, made once (a small body's: its getters read this record). */
  answer?: CachedAnswer;
  body?: string;
  /** The body's UTF-8 bytes, which replace `body` once asked for (fewer bytes than a UTF-16 string). */
  bytes?: Buffer;
  gzip?: Buffer;
  etag: string;
  version?: string;
  size: number;
}

/** Bodies from this many characters on are kept gzipped: a 25-product page is about 30,000. */
const GZIP_FROM = 4096;

function kept(answer: CachedAnswer, key: string): Kept {
  const fixed = 2 * (key.length + answer.etag.length) + 64;
  if (answer.body.length >= GZIP_FROM) {
    const gzip = gzipSync(answer.body, { level: 6 });
    // Strings are UTF-16 in V8 at worst: two bytes a character.
    if (gzip.length < answer.body.length) return { gzip, etag: answer.etag, version: answer.version, size: gzip.length + fixed };
  }
  return { body: answer.body, etag: answer.etag, version: answer.version, size: 2 * answer.body.length + fixed };
}

/**
 * The answer of what the cache holds. A small body is kept as a string until its bytes are asked
 * for (the front door writes bytes), then as bytes; a gzipped body is unzipped only when it is
 * read, and then kept unzipped, as bytes, in `hot` a while.
 */
function answerOf(k: Kept, key: string, hot: LRUCache<string, Buffer>): CachedAnswer {
  if (k.gzip === undefined) {
    return (k.answer ??= {
      etag: k.etag,
      version: k.version,
      get body() {
        return k.body ?? k.bytes!.toString('utf8');
      },
      get bytes() {
        if (k.bytes === undefined) {
          k.bytes = Buffer.from(k.body!, 'utf8');
          k.body = undefined;
        }
        return k.bytes;
      },
    });
  }
  const gzip = k.gzip;
  let bytes = hot.get(key);
  const unzipped = () => {
    if (bytes === undefined) {
      bytes = gunzipSync(gzip);
      hot.set(key, bytes);
    }
    return bytes;
  };
  return {
    etag: k.etag,
    version: k.version,
    gzip,
    get body() {
      return unzipped().toString('utf8');
    },
    get bytes() {
      return unzipped();
    },
  };
}

/** The part of the budget that keeps the most recently read large answers unzipped, so a hot page is not unzipped on every read. */
const HOT_SHARE = 8;

/**
 * A place in the cache taken before the database is read; `fill` keeps the answer only if nothing
 * changed meanwhile, with the version of the data it was made from when the caller knows it.
 */
export interface CacheSlot {
  readonly hit?: CachedAnswer;
  fill(body: string, version?: string): CachedAnswer;
}

/**
 * A read checked against the answer kept (`ReadCache.checked`): `unless` is the kept answer's version
 * (absent when none is kept, or it is too old); the read answers the version it saw, with a body
 * unless that version is `unless`.
 */
export type CheckedRead = (unless: string | undefined) => Promise<{ version: string; body?: string }>;

/** A strong entity tag of a body: the first 16 bytes of its SHA-256. */
export function entityTag(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}

/**
 * Storefront answers kept in memory, already serialized, per store and per topic (e.g. `catalog`).
 *
 * Invalidation is by generation: each store's topic has a counter that every change announced for
 * it bumps, and the counter is part of every key. A slot is taken (with the generation of that
 * moment) before the database is read, so an answer read while a change committed is filed under
 * the old generation and never served. Messages come from every process through the token cache's
 * listener (`CacheSync`); while that listener is lost nothing is read from or kept in the cache,
 * and when it is back the cache starts empty.
 *
 * Memory is bounded by bytes, and shared fairly between stores: when an answer does not fit, the
 * store that holds the most bytes gives up its least recently used answers first, so one busy store
 * (or a crawler walking every page of one) cannot push every other store out. A deployment of one
 * store uses the whole budget. Within a store, the least recently used answer goes first.
 *
 * Large answers (lists) are kept gzipped, a fifth or less of their JSON; an eighth of the budget
 * keeps the most recently read of them unzipped, so a hot page is not unzipped on every read.
 */
/**
 * Where an answer of a store's topic is kept, worked out once (`locate`) for a caller that asks for
 * it again and again (the front door): the strings are made, and hashed, once.
 */
export interface CachePlace {
  /** The store's topic (`topic:tenant`). */
  readonly scope: string;
  /** The topic's generation when the place was worked out: a change since makes the place empty. */
  readonly generation: number;
  /** The entry's key. */
  readonly key: string;
}

/** A store's topic, as generations are counted and entries' keys begin. */
const scopeOf = (tenantId: string, topic: string) => `${topic}:${tenantId}`;

/** What a store holds: its bytes, and its keys from least to most recently used. */
interface StoreShare {
  bytes: number;
  keys: Set<string>;
}

/** What the cache holds now (for `/metrics` and the scale benchmark). */
export interface CacheStats {
  bytes: number;
  maxBytes: number;
  entries: number;
  /** Stores with at least one answer kept. */
  stores: number;
  /** The bytes of the store that holds the most. */
  largestStoreBytes: number;
}

export class ReadCache {
  private readonly entries: LRUCache<string, Kept> | undefined;
  private readonly hot: LRUCache<string, Buffer>;
  /** The budget of `entries`: the whole but the hot part. */
  private readonly budget: number;
  private readonly shares = new Map<string, StoreShare>();
  /** The store of each key kept (the key's second part), so a removal finds its share. */
  private readonly owners = new Map<string, string>();
  private readonly generations = new Map<string, number>();
  private trusted: boolean;
  /** Bumped when the listener is lost or back: a slot taken before must not be filled. */
  private epoch = 0;

  constructor(
    readonly settings: ReadCacheSettings,
    /** The processes' listener (none on the embedded database, which serves one process). */
    readonly sync?: CacheSync,
  ) {
    this.trusted = sync ? sync.listening : true;
    const hotBytes = Math.floor(settings.maxBytes / HOT_SHARE);
    this.budget = settings.maxBytes - hotBytes;
    this.hot = new LRUCache<string, Buffer>({ maxSize: Math.max(1, hotBytes), sizeCalculation: (bytes, key) => bytes.length + 2 * key.length + 64 });
    this.entries = settings.enabled
      ? new LRUCache<string, Kept>({
          // A backstop: `keep` makes room first, from the largest store, so this never has to.
          maxSize: this.budget,
          sizeCalculation: (k) => k.size,
          dispose: (k, key) => this.forget(key, k.size),
        })
      : undefined;
  }

  /** Bytes, entries and stores held now. */
  stats(): CacheStats {
    let largest = 0;
    for (const share of this.shares.values()) largest = Math.max(largest, share.bytes);
    return { bytes: this.bytes, maxBytes: this.settings.maxBytes, entries: this.size, stores: this.shares.size, largestStoreBytes: largest };
  }

  /** Keeps `answer` under `key` for the store, after making room from the store that holds the most. */
  private keep(tenantId: string, key: string, answer: CachedAnswer): void {
    const entries = this.entries!;
    const held = kept(answer, key);
    const size = held.size;
    if (size > this.budget) return;
    entries.delete(key);
    while (entries.calculatedSize + size > this.budget) {
      let largest: StoreShare | undefined;
      for (const share of this.shares.values()) if (!largest || share.bytes > largest.bytes) largest = share;
      const oldest = largest?.keys.values().next().value;
      if (oldest === undefined) break;
      entries.delete(oldest);
    }
    entries.set(key, held, { size });
    this.owners.set(key, tenantId);
    const share = this.shares.get(tenantId) ?? { bytes: 0, keys: new Set<string>() };
    share.bytes += size;
    share.keys.add(key);
    this.shares.set(tenantId, share);
  }

  private empty(): void {
    this.entries?.clear();
    this.hot.clear();
    this.shares.clear();
    this.owners.clear();
  }

  /** A hit moves the key to the most recently used end of its store's list. */
  private touched(key: string): void {
    const share = this.shares.get(this.owners.get(key) ?? '');
    if (share && share.keys.delete(key)) share.keys.add(key);
  }

  /** Called by the LRU when an answer leaves (removed, replaced or pushed out). */
  private forget(key: string, size: number): void {
    const tenantId = this.owners.get(key);
    if (tenantId === undefined) return;
    this.owners.delete(key);
    const share = this.shares.get(tenantId);
    if (!share || !share.keys.delete(key)) return;
    share.bytes -= size;
    if (share.keys.size === 0) this.shares.delete(tenantId);
  }

  /** Whether answers are served from memory now (on, and the listener is not lost). */
  get serving(): boolean {
    return this.entries !== undefined && this.trusted;
  }

  /** Bytes held (lru-cache's own count), the unzipped copies of hot answers included. */
  get bytes(): number {
    return (this.entries?.calculatedSize ?? 0) + this.hot.calculatedSize;
  }

  get size(): number {
    return this.entries?.size ?? 0;
  }

  /** Listens to the processes' messages about `topic` (a plugin calls it once, at registration). */
  join(topic: string): void {
    this.sync?.join(topic, {
      forget: (tenantId) => this.invalidate(tenantId, topic),
      lost: () => {
        this.trusted = false;
        this.epoch += 1;
        this.empty();
      },
      resynced: () => {
        this.epoch += 1;
        this.empty();
        this.trusted = true;
      },
    });
  }

  /**
   * A change of the store's `topic` committed in this process: its answers go at once here, and in
   * the other processes through the listener, unless the database already told them (a trigger's
   * `NOTIFY` in the changing transaction reaches every process when the listener is PostgreSQL's).
   */
  async changed(tenantId: string, topic: string): Promise<void> {
    this.invalidate(tenantId, topic);
    if (this.sync && !this.sync.hearsDatabase) await this.sync.announce(tenantId, topic);
  }

  /**
   * Resolves once every change message sent before the call has reached this process (and every
   * other listening one): a message of its own goes round the same channel, which delivers in
   * order. A test that reads what the cache holds right after writes waits for their notices first.
   */
  async caughtUp(): Promise<void> {
    await this.sync?.announce('-', 'caught-up');
  }

  /** Makes every answer kept for the store's topic unreachable (they age out of the LRU). */
  invalidate(tenantId: string, topic: string): void {
    const scope = scopeOf(tenantId, topic);
    this.generations.set(scope, (this.generations.get(scope) ?? 0) + 1);
  }

  /** Where `key` of the store's topic is kept now (for `peekAt`, again and again). */
  locate(tenantId: string, topic: string, key: string): CachePlace {
    const scope = scopeOf(tenantId, topic);
    const generation = this.generations.get(scope) ?? 0;
    return { scope, generation, key: `${scope}:${generation}:${key}` };
  }

  /** The answer kept at `place`, if any and its topic has not changed since the place was located (a hit, as `slot` counts one). */
  peekAt(place: CachePlace): CachedAnswer | undefined {
    if (!this.serving || (this.generations.get(place.scope) ?? 0) !== place.generation) return undefined;
    const held = this.entries!.get(place.key);
    if (!held) return undefined;
    this.touched(place.key);
    return answerOf(held, place.key, this.hot);
  }

  /**
   * An answer kept with the version of the data it was made from and checked against the database
   * at every read (decisions 0099, 0101), where notices alone would be too late (an admin must see
   * a change made through any process at once): `read` gets the kept answer's version and, in one
   * statement, answers the version it sees and a body only when that differs. A kept answer older
   * than `maxAgeMs` (by `now`) is not offered. Nothing is kept while the cache is not serving.
   */
  async checked(tenantId: string, topic: string, key: string, read: CheckedRead, options: { maxAgeMs?: number; now?: () => number } = {}): Promise<CachedAnswer> {
    const now = options.now ?? Date.now;
    const slot = this.slot(tenantId, topic, key);
    // The version as kept: the time it was kept, then the caller's version.
    const [at, version] = slot.hit?.version?.split(/ (.*)/s) ?? [];
    const held = version !== undefined && now() - Number(at) < (options.maxAgeMs ?? Infinity) ? slot.hit : undefined;
    const seen = await read(held ? version : undefined);
    if (seen.body === undefined) {
      if (!held) throw new Error(`A checked read of "${key}" answered no body with no answer kept`);
      return held;
    }
    return slot.fill(seen.body, `${now()} ${seen.version}`);
  }

  /** The slot of `key` (a request's URL, say) of the store's topic. */
  slot(tenantId: string, topic: string, key: string): CacheSlot {
    if (!this.serving) return { fill: (body, version) => ({ body, etag: entityTag(body), version }) };
    const full = this.locate(tenantId, topic, key).key;
    const entries = this.entries!;
    const epoch = this.epoch;
    const held = entries.get(full);
    if (held) this.touched(full);
    return {
      hit: held && answerOf(held, full, this.hot),
      fill: (body, version) => {
        const answer = { body, etag: entityTag(body), version };
        // Kept only if the listener stayed up the whole time: a message may have been missed.
        if (this.trusted && this.epoch === epoch) this.keep(tenantId, full, answer);
        return answer;
      },
    };
  }
}
