import { CLOCK, Secrets, type Clock } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { ABANDONED_CART_SETTINGS, type AbandonedCartSettings } from './settings.js';

export interface RecoveryClaim {
  tenantId: string;
  cartId: string;
  /** The token stops being valid when the cart expires. */
  expiresAt: Date;
}

/**
 * Recovery links: the recovery URL with `{token}` replaced by the token, an authenticated
 * encryption (core's `Secrets`, AES-256-GCM) of the tenant, the cart and the cart's expiry. It
 * cannot be forged or altered without the key. `GET /api/v1/abandoned-carts/restore?token=`
 * (the default link, or what a storefront page calls) gives the cart back.
 */
@injectable()
export class RecoveryLinks {
  constructor(
    @inject(Secrets) private readonly secrets: Secrets,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(ABANDONED_CART_SETTINGS) private readonly settings: AbandonedCartSettings,
  ) {}

  token(claim: RecoveryClaim): string {
    return this.secrets.seal(JSON.stringify({ p: 'cart-recovery', t: claim.tenantId, c: claim.cartId, x: claim.expiresAt.getTime() }));
  }

  link(claim: RecoveryClaim): string {
    return this.settings.recoveryUrl.replaceAll('{token}', encodeURIComponent(this.token(claim)));
  }

  /** The tenant and cart of a token this store issued, or null (forged, altered, expired). */
  verify(token: string): RecoveryClaim | null {
    const claim = this.read(token);
    return claim && claim.expiresAt.getTime() > this.clock.now().getTime() ? claim : null;
  }

  /** What a genuine token says, expired or not; null when forged or altered. */
  read(token: string): RecoveryClaim | null {
    let claim: { p?: unknown; t?: unknown; c?: unknown; x?: unknown };
    try {
      claim = JSON.parse(this.secrets.open(token));
    } catch {
      return null;
    }
    if (claim.p !== 'cart-recovery' || typeof claim.t !== 'string' || typeof claim.c !== 'string' || typeof claim.x !== 'number') return null;
    return { tenantId: claim.t, cartId: claim.c, expiresAt: new Date(claim.x) };
  }
}
