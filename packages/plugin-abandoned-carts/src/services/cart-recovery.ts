import { LockMode } from '@mikro-orm/core';
import { AppError, CLOCK, Database, Tenant, type Clock } from '@qhatu/core';
import { Carts, type CartView } from '@qhatu/plugin-checkout';
import { inject, injectable } from 'tsyringe';
import { AbandonedCart } from '../entities/abandoned-cart.js';
import { RecoveryLinks } from './recovery-links.js';

const invalidLink = () => new AppError(404, 'RECOVERY_LINK_INVALID', 'This recovery link is not one this store sent', [{ path: 'querystring.token', message: 'unknown token' }]);

/**
 * What a recovery link opens: the shopper's cart, ready to go on with. The token is the
 * credential (it names the store and the cart, sealed); no API key is needed.
 */
@injectable()
export class CartRecovery {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(RecoveryLinks) private readonly links: RecoveryLinks,
    @inject(Carts) private readonly carts: Carts,
    @inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The cart of the link, priced now. A cart frozen by its abandoned checkout is copied into a new
   * open cart (checkout's `Carts.restore`), remembered on the record as `restored_cart_id`: the
   * same link opens the same cart again, and the sweep follows that cart to see the shopper back.
   * Opening the link does not mark the cart recovered (mail scanners open links too); what the
   * shopper does with the cart does.
   */
  async restore(token: string): Promise<CartView> {
    const claim = this.links.read(token);
    if (!claim) throw invalidLink();
    if (claim.expiresAt.getTime() <= this.clock.now().getTime()) {
      throw new AppError(410, 'CART_EXPIRED', 'The cart of this recovery link has expired', [{ message: 'expired', expires_at: claim.expiresAt.toISOString() }]);
    }
    return this.db.tenant(async (tx) => {
      const tenant = await tx.em.findOne(Tenant, { id: tx.tenantId });
      if (!tenant) throw invalidLink();
      if (tenant.status === 'suspended') throw new AppError(403, 'TENANT_SUSPENDED', 'This store is suspended');
      const record = await tx.em.findOne(AbandonedCart, { cartId: claim.cartId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!record) throw invalidLink();
      const restored = await this.carts.restore(tx, record.restoredCartId ?? record.cartId);
      if (restored.copied) {
        record.restoredCartId = restored.cart.id;
        record.restoredAt = tx.now();
        record.updatedAt = tx.now();
      }
      return restored;
    }, claim.tenantId);
  }
}
