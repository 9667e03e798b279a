import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import type { Principal, TokenKind } from '../context.js';
import { Database, type Tx } from '../db/database.js';
import { AccessToken } from '../db/entities.js';
import { retryingRead } from '../db/retry.js';
import { AppError } from '../errors.js';
import { CLOCK, CONFIG, type Clock } from '../tokens.js';
import type { QhatuConfig } from '../config.js';
import type { CacheSync } from './cache-sync.js';
import { storeLocales } from '../translations/locales.js';
import { marketsOf, type MarketRow } from '../markets/market.js';
import { currencyRowsSql, storeMoneyOf, type CurrencyRow } from '../markets/money.js';

export type TenantTokenKind = Exclude<TokenKind, 'platform'>;

const KIND_LETTER: Record<TenantTokenKind, string> = {
  admin: 'a',
  storefront: 's',
  customer: 'c',
  vendor: 'v',
  staff: 'm',
};

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

interface CachedToken {
  principal: Principal;
  tenantStatus: string;
  expiresAt: Date | null;
  cachedAt: number;
}

interface TokenRow {
  id: string;
  kind: TenantTokenKind;
  subject_id: string | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  tenant_status: string;
  default_locale: string;
  locales: string[];
  currency: string;
  currencies: CurrencyRow[];
  markets: MarketRow[];
  staff_status: string | null;
  role_id: string | null;
  built_in: string | null;
  permissions: string[] | null;
}

const CACHE_TTL_MS = 30_000;
const CACHE_MAX = 10_000;

/**
 * Opaque bearer tokens. A token reads `qh<kind>_<tenant>_<secret>`: the tenant part lets a mismatch
 * with X-Tenant-ID be told apart from a bad token without a query; only the SHA-256 of the token is
 * stored. A lookup (one statement: the token, its store's status and languages and, for a staff
 * member or a role-bound key, the role's permissions) is cached for 30 s. Revocation, a staff member's change
 * and a store's status change clear the cache of every API process at once (see `CacheSync`); a
 * process whose listener is lost reads every token from the database until it is back.
 */
@injectable()
export class AccessTokens {
  private readonly cache = new Map<string, CachedToken>();
  private readonly platformDigest?: Buffer;
  private sync?: CacheSync;
  /** False while the cross-process listener is lost: every lookup goes to the database. */
  private trusted = true;

  constructor(
    @inject(Database) private readonly db: Database,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(CONFIG) config: QhatuConfig,
  ) {
    if (config.platformToken) this.platformDigest = createHash('sha256').update(config.platformToken).digest();
  }

  /** Joins the processes' cache invalidation (PostgreSQL or Redis); without it the cache is this process's alone. */
  async attach(sync: CacheSync): Promise<void> {
    this.sync = sync;
    await sync.start({
      forget: (tenantId) => this.dropLocal(tenantId),
      lost: () => {
        this.trusted = false;
        this.cache.clear();
      },
      resynced: () => {
        this.cache.clear();
        this.trusted = true;
      },
    });
  }

  /** The cross-process invalidation this process joined, if any. */
  get cacheSync(): CacheSync | undefined {
    return this.sync;
  }

  /** Whether cached lookups are used (false while the cross-process listener is lost). */
  get cacheTrusted(): boolean {
    return this.trusted;
  }

  /** Creates a token; the clear text is returned once and never stored. */
  async issue(
    tx: Tx,
    input: { tenantId: string; kind: TenantTokenKind; name?: string | null; subjectId?: string | null; expiresAt?: Date | null; roleId?: string | null },
  ): Promise<{ token: string; record: AccessToken }> {
    const secret = randomBytes(32).toString('base64url');
    const token = `qh${KIND_LETTER[input.kind]}_${input.tenantId.replaceAll('-', '')}_${secret}`;
    const record = tx.em.create(AccessToken, {
      id: randomUUID(),
      tenantId: input.tenantId,
      kind: input.kind,
      name: input.name ?? null,
      tokenHash: hashToken(token),
      tokenPrefix: token.slice(0, 8),
      subjectId: input.subjectId ?? null,
      roleId: input.roleId ?? null,
      expiresAt: input.expiresAt ?? null,
      revokedAt: null,
      createdAt: this.clock.now(),
    });
    return { token, record };
  }

  isPlatformToken(token: string): boolean {
    if (!this.platformDigest) return false;
    return timingSafeEqual(createHash('sha256').update(token).digest(), this.platformDigest);
  }

  /** The principal behind `token` for `tenantId`, or a 401/403 AppError. */
  async authenticate(token: string, tenantId: string): Promise<Principal> {
    const match = /^qh([ascvm])_([0-9a-f]{32})_[A-Za-z0-9_-]{43}$/.exec(token);
    if (!match) throw AppError.unauthenticated('The bearer token is not valid');
    const tokenTenant = match[2];
    if (tokenTenant !== tenantId.replaceAll('-', '').toLowerCase()) {
      throw AppError.forbidden('The token does not belong to the tenant named in X-Tenant-ID');
    }
    const hash = hashToken(token);
    const key = `${tenantId}:${hash}`;
    let entry = this.trusted ? this.cache.get(key) : undefined;
    if (!entry || Date.now() - entry.cachedAt > CACHE_TTL_MS) {
      const trustedBefore = this.trusted;
      entry = await this.load(tenantId, hash);
      // A lookup that raced with a lost listener is not kept.
      if (trustedBefore && this.trusted) {
        if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
        this.cache.set(key, entry);
      }
    }
    if (entry.expiresAt && entry.expiresAt.getTime() <= this.clock.now().getTime()) {
      throw AppError.unauthenticated('The bearer token has expired');
    }
    if (entry.tenantStatus === 'suspended') throw new AppError(403, 'TENANT_SUSPENDED', 'This store is suspended');
    if (entry.tenantStatus === 'expired') {
      throw new AppError(403, 'TENANT_EXPIRED', "This store's subscription has expired; it must be activated");
    }
    return entry.principal;
  }

  /** The cache's key of a token of `tenantId` (what `authenticate` files it under). */
  cacheKey(token: string, tenantId: string): string {
    return `${tenantId}:${hashToken(token)}`;
  }

  /**
   * Whether the lookup cached under `key` still stands for `principal` as `authenticate` would take
   * it now, without a statement: the same lookup (not revoked or changed since), fresh, the token
   * not expired, its store active. False means: ask `authenticate`.
   */
  stillHolds(key: string, principal: Principal): boolean {
    if (!this.trusted) return false;
    const entry = this.cache.get(key);
    if (!entry || entry.principal !== principal || Date.now() - entry.cachedAt > CACHE_TTL_MS) return false;
    if (entry.expiresAt && entry.expiresAt.getTime() <= this.clock.now().getTime()) return false;
    return entry.tenantStatus !== 'suspended' && entry.tenantStatus !== 'expired';
  }

  private async load(tenantId: string, hash: string): Promise<CachedToken> {
    // One statement for every kind: a staff member's status and role ride on the token's row. A read: asked again after a lost connection.
    const rows = await retryingRead(() => this.db.query<TokenRow>(
      `select t.id, t.kind, t.subject_id, t.expires_at, t.revoked_at, tn.status as tenant_status, tn.default_locale, tn.locales, tn.currency,
              ${currencyRowsSql('t.tenant_id')} as currencies,
              (select coalesce(json_agg(m order by m.handle), '[]') from core_market m where m.tenant_id = t.tenant_id) as markets,
              s.status as staff_status, r.id as role_id, r.built_in, r.permissions
         from core_access_token t
         join core_tenant tn on tn.id = t.tenant_id
         left join core_staff s on t.kind = 'staff' and s.tenant_id = t.tenant_id and s.id = t.subject_id
         left join core_role r on r.tenant_id = t.tenant_id and r.id = coalesce(s.role_id, t.role_id)
        where t.tenant_id = ? and t.token_hash = ?`,
      [tenantId, hash],
    ));
    const row = rows[0];
    if (!row || row.revoked_at) throw AppError.unauthenticated('The bearer token is not valid');
    if (row.kind === 'staff' && row.staff_status !== 'active') {
      throw AppError.unauthenticated('This staff account is disabled or was removed');
    }
    const roleBound = row.kind === 'staff' || row.role_id !== null;
    const permissions = !roleBound || row.built_in ? null : new Set(row.permissions ?? []);
    return {
      principal: {
        tokenId: row.id,
        kind: row.kind,
        tenantId,
        subjectId: row.subject_id,
        id: row.subject_id ?? row.id,
        permissions: row.kind === 'admin' || row.kind === 'staff' ? permissions : new Set(),
        locales: storeLocales(row.default_locale, row.locales),
        money: storeMoneyOf(row.currency, row.currencies),
        markets: marketsOf(row.markets),
      },
      tenantStatus: row.tenant_status,
      expiresAt: row.expires_at ? new Date(row.expires_at) : null,
      cachedAt: Date.now(),
    };
  }

  private dropLocal(tenantId: string): void {
    for (const key of this.cache.keys()) if (key.startsWith(`${tenantId}:`)) this.cache.delete(key);
  }

  /**
   * Forgets cached lookups of a tenant, after its status or its tokens changed: in this process at
   * once, and in every other API process before the promise resolves (within a second).
   */
  async forgetTenant(tenantId: string): Promise<void> {
    this.dropLocal(tenantId);
    await this.sync?.announce(tenantId);
  }

  /** Stops listening to the other processes. */
  async close(): Promise<void> {
    await this.sync?.close();
  }
}
