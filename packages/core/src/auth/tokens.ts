import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import type { Principal, TokenKind } from '../context.js';
import { Database, type Tx } from '../db/database.js';
import { AccessToken } from '../db/entities.js';
import { AppError } from '../errors.js';
import { CLOCK, CONFIG, type Clock } from '../tokens.js';
import type { QhatuConfig } from '../config.js';

const KIND_LETTER: Record<Exclude<TokenKind, 'platform'>, string> = {
  admin: 'a',
  storefront: 's',
  customer: 'c',
  vendor: 'v',
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
  kind: Exclude<TokenKind, 'platform'>;
  subject_id: string | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  tenant_status: string;
}

const CACHE_TTL_MS = 30_000;
const CACHE_MAX = 10_000;

/**
 * Opaque bearer tokens. A token reads `qh<kind>_<tenant>_<secret>`: the tenant part lets a mismatch
 * with X-Tenant-ID be told apart from a bad token without a query; only the SHA-256 of the token is
 * stored. Lookups are cached for 30 s; revocation and tenant status changes clear this process's cache.
 */
@injectable()
export class AccessTokens {
  private readonly cache = new Map<string, CachedToken>();
  private readonly platformDigest?: Buffer;

  constructor(
    @inject(Database) private readonly db: Database,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(CONFIG) config: QhatuConfig,
  ) {
    if (config.platformToken) this.platformDigest = createHash('sha256').update(config.platformToken).digest();
  }

  /** Creates a token; the clear text is returned once and never stored. */
  async issue(
    tx: Tx,
    input: { tenantId: string; kind: Exclude<TokenKind, 'platform'>; name?: string | null; subjectId?: string | null; expiresAt?: Date | null },
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
    const match = /^qh([ascv])_([0-9a-f]{32})_[A-Za-z0-9_-]{43}$/.exec(token);
    if (!match) throw AppError.unauthenticated('The bearer token is not valid');
    const tokenTenant = match[2];
    if (tokenTenant !== tenantId.replaceAll('-', '').toLowerCase()) {
      throw AppError.forbidden('The token does not belong to the tenant named in X-Tenant-ID');
    }
    const hash = hashToken(token);
    const key = `${tenantId}:${hash}`;
    let entry = this.cache.get(key);
    if (!entry || Date.now() - entry.cachedAt > CACHE_TTL_MS) {
      entry = await this.load(tenantId, hash);
      if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(key, entry);
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

  private async load(tenantId: string, hash: string): Promise<CachedToken> {
    const rows = await this.db.query<TokenRow>(
      `select t.id, t.kind, t.subject_id, t.expires_at, t.revoked_at, tn.status as tenant_status
         from core_access_token t join core_tenant tn on tn.id = t.tenant_id
        where t.tenant_id = ? and t.token_hash = ?`,
      [tenantId, hash],
    );
    const row = rows[0];
    if (!row || row.revoked_at) throw AppError.unauthenticated('The bearer token is not valid');
    return {
      principal: { tokenId: row.id, kind: row.kind, tenantId, subjectId: row.subject_id },
      tenantStatus: row.tenant_status,
      expiresAt: row.expires_at ? new Date(row.expires_at) : null,
      cachedAt: Date.now(),
    };
  }

  /** Forgets cached lookups of a tenant, after its status or its tokens changed. */
  forgetTenant(tenantId: string): void {
    for (const key of this.cache.keys()) if (key.startsWith(`${tenantId}:`)) this.cache.delete(key);
  }
}
