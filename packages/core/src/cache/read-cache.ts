import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { CacheSync } from '../auth/cache-sync.js';

/** `QHATU_CACHE` and `QHATU_CACHE_MAX_MB`. */
export interface ReadCacheSettings {
  enabled: boolean;
  maxBytes: number;
}

/** An answer kept as it was sent: the serialized body and its entity tag. */
export interface CachedAnswer {
  body: string;
  etag: string;
}

/** A place in the cache taken before the database is read; `fill` keeps the answer only if nothing changed meanwhile. */
export interface CacheSlot {
  readonly hit?: CachedAnswer;
  fill(body: string): CachedAnswer;
}

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
 * and when it is back the cache starts empty. Memory is bounded by bytes (least recently used out).
 */
export class ReadCache {
  private readonly entries: LRUCache<string, CachedAnswer> | undefined;
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
    this.entries = settings.enabled
      ? new LRUCache<string, CachedAnswer>({
          maxSize: settings.maxBytes,
          // Strings are UTF-16 in V8: two bytes a character, plus the key and the tag.
          sizeCalculation: (answer, key) => 2 * (answer.body.length + key.length + answer.etag.length) + 64,
        })
      : undefined;
  }

  /** Whether answers are served from memory now (on, and the listener is not lost). */
  get serving(): boolean {
    return this.entries !== undefined && this.trusted;
  }

  /** Bytes held (lru-cache's own count). */
  get bytes(): number {
    return this.entries?.calculatedSize ?? 0;
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
        this.entries?.clear();
      },
      resynced: () => {
        this.epoch += 1;
        this.entries?.clear();
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

  /** Makes every answer kept for the store's topic unreachable (they age out of the LRU). */
  invalidate(tenantId: string, topic: string): void {
    const scope = `${topic}:${tenantId}`;
    this.generations.set(scope, (this.generations.get(scope) ?? 0) + 1);
  }

  /** The slot of `key` (a request's URL, say) of the store's topic. */
  slot(tenantId: string, topic: string, key: string): CacheSlot {
    if (!this.serving) return { fill: (body) => ({ body, etag: entityTag(body) }) };
    const scope = `${topic}:${tenantId}`;
    const full = `${scope}:${this.generations.get(scope) ?? 0}:${key}`;
    const entries = this.entries!;
    const epoch = this.epoch;
    return {
      hit: entries.get(full),
      fill: (body) => {
        const answer = { body, etag: entityTag(body) };
        // Kept only if the listener stayed up the whole time: a message may have been missed.
        if (this.trusted && this.epoch === epoch) entries.set(full, answer);
        return answer;
      },
    };
  }
}
