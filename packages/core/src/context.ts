import { AsyncSlot } from './async-slot.js';
import { AppError } from './errors.js';
import type { Market } from './markets/market.js';
import type { StoreMoney } from './markets/money.js';
import type { StoreLocales } from './translations/locales.js';

export type TokenKind = 'platform' | 'admin' | 'storefront' | 'customer' | 'vendor' | 'staff';

/** Who is calling: resolved from the bearer token. */
export interface Principal {
  tokenId: string | null;
  kind: TokenKind;
  tenantId: string | null;
  /** The customer, vendor or staff member the token speaks for. */
  subjectId: string | null;
  /**
   * The one id of the caller, whoever it is: the staff member, customer or vendor the token speaks
   * for, or the API key itself; null for the platform operator. `created_by`-style fields take it.
   */
  id: string | null;
  /**
   * The permissions the caller holds on admin routes: `null` for every permission (an owner or
   * admin, an API key without a role), else the permissions of its role.
   */
  permissions: ReadonlySet<string> | null;
  /** The store's languages, read with the token (no statement of their own); absent for the platform. */
  locales?: StoreLocales;
  /** The store's currencies and rates, read with the token; absent for the platform. */
  money?: StoreMoney;
  /** The store's markets, read with the token; absent for the platform. */
  markets?: readonly Market[];
}

/** What a request (or a job) runs as. Mutable: auth fills it in after it is opened. */
export interface RequestScope {
  requestId?: string;
  tenantId?: string;
  principal?: Principal;
}

const storage = new AsyncSlot<RequestScope>('qhatu.request-scope');

export const TenantContext = {
  run<T>(scope: RequestScope, fn: () => T): T {
    return storage.run(scope, fn);
  },
  current(): RequestScope | undefined {
    return storage.get();
  },
  /** The tenant of the current request or job; fails closed when there is none. */
  tenantId(): string {
    const id = storage.get()?.tenantId;
    if (!id) throw new AppError(400, 'TENANT_REQUIRED', 'This operation needs a tenant context (X-Tenant-ID)');
    return id;
  },
  principal(): Principal | undefined {
    return storage.get()?.principal;
  },
  /** The id of the authenticated caller (see `Principal.id`), or null in a job or for the platform. */
  principalId(): string | null {
    return storage.get()?.principal?.id ?? null;
  },
};
