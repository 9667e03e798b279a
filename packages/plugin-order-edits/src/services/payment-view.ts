import { Database, paymentLinkNotFound, Tenant } from '@qhatu/core';
import { amountDue, Order } from '@qhatu/plugin-orders';
import { inject, injectable } from 'tsyringe';
import { OrderEdit } from '../entities/order-edit.js';
import { PaymentLinks } from './payment-links.js';

/**
 * The page behind a payment link: the token is the credential (no key, no X-Tenant-ID) and names
 * the store, which is then the transaction's. Forged or altered: 404 PAYMENT_LINK_NOT_FOUND; past
 * its date: 410 PAYMENT_LINK_EXPIRED.
 */
@injectable()
export class EditPaymentView {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(PaymentLinks) private readonly links: PaymentLinks,
  ) {}

  async view(token: string) {
    const claim = this.links.open(token);
    return this.db.tenant(async ({ em }) => {
      const edit = await em.findOne(OrderEdit, { id: claim.editId, orderId: claim.orderId });
      const order = edit && (await em.findOne(Order, { id: claim.orderId }));
      if (!edit || !order) throw paymentLinkNotFound();
      const store = await em.findOneOrFail(Tenant, { id: claim.tenantId });
      return {
        tenant_id: store.id, store_name: store.name, order_id: order.id, order_number: order.number, order_status: order.status, edit_id: edit.id,
        currency: order.currency.trim(), total: order.total, amount_due: amountDue(order), expires_at: claim.expiresAt.toISOString(),
      };
    }, claim.tenantId);
  }
}
