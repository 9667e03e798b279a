import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { inject, injectable } from 'tsyringe';
import { AccessTokens } from '../auth/tokens.js';
import { Database } from '../db/database.js';
import { AccessToken, BUILT_IN_ROLES, Role, Tenant, type TenantStatus } from '../db/entities.js';
import { AppError } from '../errors.js';
import { paginate, type Page, type PageRequest } from '../http/pagination.js';
import { searchWhere } from '../db/search.js';
import { storeLocales } from '../translations/locales.js';
import { assertMarketLocalesListed } from '../translations/store-locales.js';
import { tenantMachine } from './tenant-machine.js';

export interface TenantInput {
  name: string;
  slug?: string;
  currency?: string;
  default_locale?: string;
  status?: 'active' | 'trial';
}

export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return slug.length >= 2 ? slug : `store-${randomUUID().slice(0, 8)}`;
}

/** Stores on the platform: created, renamed, suspended and activated by the operator. */
@injectable()
export class Tenants {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(AccessTokens) private readonly tokens: AccessTokens,
  ) {}

  async create(input: TenantInput): Promise<Tenant> {
    return this.db.platform(async ({ em, now }) => {
      const slug = input.slug ?? (await this.freeSlug(em, slugify(input.name)));
      if (input.slug && (await em.count(Tenant, { slug }))) {
        throw AppError.conflict(`The slug "${slug}" is taken`, 'CONFLICT', [{ path: 'body.slug', message: 'is taken' }]);
      }
      const at = now();
      const tenant = em.create(Tenant, {
        id: randomUUID(),
        name: input.name,
        slug,
        status: input.status ?? 'active',
        currency: input.currency ?? 'USD',
        defaultLocale: input.default_locale ?? 'en',
        createdAt: at,
        updatedAt: at,
      });
      await em.flush();
      // Every store starts with the built-in roles; its first owner is added with `qhatu staff create`.
      for (const name of BUILT_IN_ROLES) {
        em.create(Role, { id: randomUUID(), tenantId: tenant.id, name, builtIn: name, permissions: [], createdAt: at, updatedAt: at });
      }
      await em.flush();
      return tenant;
    });
  }

  private async freeSlug(em: Parameters<Parameters<Database['platform']>[0]>[0]['em'], base: string): Promise<string> {
    const taken = new Set(
      (await em.find(Tenant, { slug: { $like: `${base}%` } }, { fields: ['slug'] })).map((t) => t.slug),
    );
    if (!taken.has(base)) return base;
    for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
  }

  async get(id: string): Promise<Tenant> {
    return this.db.platform(async ({ em }) => {
      const tenant = await em.findOne(Tenant, { id });
      if (!tenant) throw AppError.notFound('Tenant', 'TENANT_NOT_FOUND');
      return tenant;
    });
  }

  async list(page: PageRequest, filter: { status?: TenantStatus; q?: string }): Promise<Page<Tenant>> {
    return this.db.platform(async ({ em }) => {
      const where: Record<string, unknown> = {};
      if (filter.status) where.status = filter.status;
      if (filter.q) Object.assign(where, searchWhere('core_tenant', filter.q));
      return paginate(em, Tenant, where, page);
    });
  }

  async replace(id: string, input: Omit<TenantInput, 'status'>): Promise<Tenant> {
    const { tenant, relocated } = await this.db.platform(async (tx) => {
      const { em, now } = tx;
      const tenant = await em.findOne(Tenant, { id });
      if (!tenant) throw AppError.notFound('Tenant', 'TENANT_NOT_FOUND');
      if (input.slug && input.slug !== tenant.slug && (await em.count(Tenant, { slug: input.slug }))) {
        throw AppError.conflict(`The slug "${input.slug}" is taken`, 'CONFLICT', [{ path: 'body.slug', message: 'is taken' }]);
      }
      tenant.name = input.name;
      if (input.slug) tenant.slug = input.slug;
      if (input.currency) tenant.currency = input.currency;
      const relocated = input.default_locale !== undefined && input.default_locale !== tenant.defaultLocale;
      if (relocated) {
        // The old default leaves the store's locales: not while a market reads in it.
        const [row] = await tx.query<{ locales: string[] }>('select locales from core_tenant where id = ?', [id]);
        await assertMarketLocalesListed(tx, id, storeLocales(input.default_locale!, row.locales).locales, 'body.default_locale');
      }
      if (input.default_locale) tenant.defaultLocale = input.default_locale;
      tenant.updatedAt = now();
      await em.flush();
      // A new default is no longer one of the others the store lists (decision 0089).
      if (relocated) await em.execute('update core_tenant set locales = array_remove(locales, ?) where id = ?', [tenant.defaultLocale, id]);
      return { tenant, relocated };
    });
    // The store's locales ride on its token lookups: every process reads them again.
    if (relocated) await this.tokens.forgetTenant(id);
    return tenant;
  }

  /** suspend | activate | expire, through the tenant machine. */
  async move(id: string, action: 'suspend' | 'activate' | 'expire'): Promise<Tenant> {
    const tenant = await this.db.platform(async (tx) => {
      const tenant = await tx.em.findOne(Tenant, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!tenant) throw AppError.notFound('Tenant', 'TENANT_NOT_FOUND');
      await tenantMachine.apply(tx, tenant, action);
      tenant.updatedAt = tx.now();
      await tx.em.flush();
      return tenant;
    }, id);
    await this.tokens.forgetTenant(id);
    return tenant;
  }

  async listApiKeys(tenantId: string, page: PageRequest): Promise<Page<AccessToken>> {
    return this.db.platform(async ({ em }) => {
      if (!(await em.count(Tenant, { id: tenantId }))) throw AppError.notFound('Tenant', 'TENANT_NOT_FOUND');
      // Platform work: the tenant is named in the query itself.
      return paginate(em, AccessToken, { tenantId, kind: { $in: ['admin', 'storefront'] } } as never, page, { filters: false });
    });
  }

  /** Revokes an API key at once, in every API process. */
  async revokeApiKey(tenantId: string, keyId: string): Promise<void> {
    await this.db.platform(async ({ em, now }) => {
      const key = await em.findOne(AccessToken, { tenantId, id: keyId, kind: { $in: ['admin', 'storefront'] } }, { filters: false });
      if (!key) throw AppError.notFound('API key', 'API_KEY_NOT_FOUND');
      key.revokedAt ??= now();
      await em.flush();
    });
    await this.tokens.forgetTenant(tenantId);
  }

  /** An API key; an admin key given a role has that role's permissions only. */
  async issueApiKey(tenantId: string, input: { name: string; scope: 'admin' | 'storefront'; expiresAt?: Date | null; roleId?: string | null }) {
    return this.db.platform(async (tx) => {
      const tenant = await tx.em.findOne(Tenant, { id: tenantId });
      if (!tenant) throw AppError.notFound('Tenant', 'TENANT_NOT_FOUND');
      // A key expired on arrival would work for no request: surely a mistaken date.
      if (input.expiresAt && input.expiresAt.getTime() <= tx.now().getTime()) {
        throw AppError.unprocessable('API_KEY_EXPIRES_IN_PAST', `expires_at (${input.expiresAt.toISOString()}) must be in the future`, [
          { path: 'body.expires_at', message: 'is not in the future' },
        ]);
      }
      if (input.roleId) {
        if (input.scope !== 'admin') {
          throw AppError.validation('Only an admin key can be given a role', [{ path: 'body.role_id', message: 'needs scope "admin"' }]);
        }
        const role = await tx.em.findOne(Role, { tenantId, id: input.roleId }, { filters: false });
        if (!role) throw AppError.unprocessable('ROLE_NOT_FOUND', `Role ${input.roleId} does not exist in this store`, [{ path: 'body.role_id', message: 'is not a role of this store' }]);
      }
      const issued = await this.tokens.issue(tx, { tenantId, kind: input.scope, name: input.name, expiresAt: input.expiresAt, roleId: input.roleId ?? null });
      await tx.em.flush();
      return issued;
    });
  }
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
