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
 * Recovery links: `<recovery url>?token=<token>`, the token an authenticated encryption
 * (core's `Secrets`, AES-256-GCM) of the tenant, the cart and the cart's expiry. It cannot be
 * forged or altered without the key; the storefront hands it to `verify` to get the cart back.
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
    const url = new URL(this.settings.recoveryUrl);
    url.searchParams.set('token', this.token(claim));
    return url.toString();
  }

  /** The tenant and cart of a token this store issued, or null (forged, altered, expired). */
  verify(token: string): RecoveryClaim | null {
    let claim: { p?: unknown; t?: unknown; c?: unknown; x?: unknown };
    try {
      claim = JSON.parse(this.secrets.open(token));
    } catch {
      return null;
    }
    if (claim.p !== 'cart-recovery' || typeof claim.t !== 'string' || typeof claim.c !== 'string' || typeof claim.x !== 'number') return null;
    if (claim.x <= this.clock.now().getTime()) return null;
    return { tenantId: claim.t, cartId: claim.c, expiresAt: new Date(claim.x) };
  }
}
