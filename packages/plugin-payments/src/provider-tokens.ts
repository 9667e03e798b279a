import { createHash } from 'node:crypto';

export interface IssuedToken {
  value: string;
  /** Epoch milliseconds after which the token is not used again (set it a little before the provider's expiry). */
  expiresAt: number;
}

/**
 * Access tokens of providers that issue them (OAuth client credentials, a security API), for
 * gateway packages: one per store credentials and host, reused until its `expiresAt`, fetched once
 * for callers that ask at the same time, and dropped when the provider refuses it. Keys come from
 * `ProviderTokens.key(...)`: a SHA-256, so no secret is ever a map key. Past `maxEntries` stores,
 * the oldest entries go.
 */
export class ProviderTokens {
  private readonly cache = new Map<string, IssuedToken>();
  private readonly fetching = new Map<string, Promise<IssuedToken>>();

  constructor(private readonly maxEntries = 1_000) {}

  /** The cache key of a host and a store's credentials. */
  static key(...parts: Array<string | undefined>): string {
    return createHash('sha256').update(JSON.stringify(parts.map((p) => p ?? ''))).digest('hex');
  }

  /** The cached token, or the one `request` fetches (shared by concurrent callers; a failure is not cached). */
  async get(key: string, request: () => Promise<IssuedToken>): Promise<string> {
    const cached = this.cache.get(key);
    if (cached && cached.expiresAt > Date.now()) return cached.value;
    let pending = this.fetching.get(key);
    if (!pending) {
      pending = request()
        .then((token) => {
          this.cache.delete(key);
          this.cache.set(key, token);
          this.prune();
          return token;
        })
        .finally(() => this.fetching.delete(key));
      this.fetching.set(key, pending);
    }
    return (await pending).value;
  }

  /** The provider refused `value`: forgotten, unless a newer token already replaced it. */
  drop(key: string, value: string): void {
    if (this.cache.get(key)?.value === value) this.cache.delete(key);
  }

  private prune(): void {
    if (this.cache.size <= this.maxEntries) return;
    const now = Date.now();
    for (const [key, token] of this.cache) if (token.expiresAt <= now) this.cache.delete(key);
    for (const key of this.cache.keys()) {
      if (this.cache.size <= this.maxEntries) break;
      this.cache.delete(key);
    }
  }
}
