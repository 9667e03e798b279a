import { AccessTokens, AppError, Database, Passwords, TenantContext } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Vendor } from '../entities/vendor.js';
import type { VendorLogin } from '../schemas/portal.js';

export interface VendorSession {
  token: string;
  expiresAt: Date;
  vendor: Vendor;
}

/** How long a portal sign-in lasts. */
export const VENDOR_TOKEN_TTL_MS = 7 * 24 * 60 * 60 * 1000;

// One answer for an unknown e-mail, a vendor without a password and a wrong password.
const invalidCredentials = () => AppError.unauthenticated('The e-mail or password is not correct');

/** The vendor portal's sign-in, and who a vendor token speaks for. */
@injectable()
export class VendorPortal {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(AccessTokens) private readonly tokens: AccessTokens,
    @inject(Passwords) private readonly passwords: Passwords,
  ) {}

  /**
   * A vendor token for the right pair: 401 for every wrong one (the same scrypt work, whether the
   * e-mail is known or not); 403 VENDOR_SUSPENDED, only with the right password, for a suspended vendor.
   */
  async login(input: VendorLogin): Promise<VendorSession> {
    const found = await this.db.tenant(({ em }) => em.findOne(Vendor, { email: input.email }));
    const matches = await this.passwords.verify(input.password, found?.passwordHash ?? null);
    if (!found || !matches) throw invalidCredentials();
    return this.db.tenant(async (tx) => {
      const vendor = await tx.em.findOne(Vendor, { id: found.id }, { refresh: true });
      if (!vendor) throw invalidCredentials();
      if (vendor.status === 'suspended') throw new AppError(403, 'VENDOR_SUSPENDED', 'This vendor is suspended and cannot sign in');
      const expiresAt = new Date(tx.now().getTime() + VENDOR_TOKEN_TTL_MS);
      const { token } = await this.tokens.issue(tx, { tenantId: tx.tenantId, kind: 'vendor', subjectId: vendor.id, expiresAt });
      return { token, expiresAt, vendor };
    });
  }

  /** The calling vendor's id (a vendor token's subject). */
  vendorId(): string {
    const principal = TenantContext.principal();
    if (principal?.kind !== 'vendor' || !principal.subjectId) throw AppError.forbidden('Only a vendor token may use the vendor portal');
    return principal.subjectId;
  }

  /** The calling vendor; a suspended one (its tokens revoked) is no longer signed in. */
  async me(): Promise<Vendor> {
    const id = this.vendorId();
    return this.db.tenant(async ({ em }) => {
      const vendor = await em.findOne(Vendor, { id });
      if (!vendor || vendor.status === 'suspended') throw AppError.unauthenticated('This vendor is no longer signed in');
      return vendor;
    });
  }
}
