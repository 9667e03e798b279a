import { AppError, Database, Tenant } from '@qhatu/core';
import { amountDue, LineItem, Order } from '@qhatu/plugin-orders';
import { inject, injectable } from 'tsyringe';
import { DraftOrder } from '../entities/draft-order.js';
import { InvoiceLinks } from './invoice-links.js';

/** What an invoice link shows: the store, the draft, and its order as it stands. */
export interface InvoiceView {
  store: Tenant;
  draft: DraftOrder;
  order: Order;
  lines: LineItem[];
  expiresAt: Date;
}

const notFound = () => AppError.notFound('Invoice', 'INVOICE_NOT_FOUND');

/**
 * The page behind an invoice link: the token is the credential (no key, no X-Tenant-ID); it names
 * the store, which is then the transaction's, so nothing of another store can be read with it. A
 * forged or altered token is 404 INVOICE_NOT_FOUND; one past its date, or of a draft reopened or
 * cancelled since (its order no longer the draft's), 410 INVOICE_EXPIRED.
 */
@injectable()
export class DraftInvoices {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(InvoiceLinks) private readonly links: InvoiceLinks,
  ) {}

  async view(token: string): Promise<InvoiceView> {
    const claim = this.links.read(token);
    if (!claim) throw notFound();
    if (claim.expired) throw expired('The invoice link has expired; ask the store for a new one');
    return this.db.tenant(async ({ em }) => {
      const draft = await em.findOne(DraftOrder, { id: claim.draftId });
      if (!draft) throw notFound();
      if (draft.orderId !== claim.orderId) throw expired('This invoice was withdrawn by the store; ask it for a new one');
      const order = await em.findOne(Order, { id: claim.orderId });
      if (!order) throw notFound();
      const lines = await em.find(LineItem, { orderId: order.id }, { orderBy: { position: 'asc' } });
      const store = await em.findOneOrFail(Tenant, { id: claim.tenantId });
      return { store, draft, order, lines, expiresAt: claim.expiresAt };
    }, claim.tenantId);
  }
}

const expired = (message: string) => new AppError(410, 'INVOICE_EXPIRED', message, [{ path: 'token', message: 'no longer valid' }]);

export function invoiceOut({ store, draft, order, lines, expiresAt }: InvoiceView) {
  return {
    tenant_id: store.id,
    store_name: store.name,
    draft_id: draft.id,
    draft_name: `D${draft.number}`,
    order_id: order.id,
    order_number: order.number,
    order_status: order.status,
    currency: order.currency.trim(),
    line_items: lines.map((l) => ({
      title: l.title, variant_title: l.variantTitle, sku: l.sku ?? null, quantity: l.quantity, unit_price: l.unitPriceAmount,
      discount_amount: l.discountAmount, tax_amount: l.taxAmount, total: l.totalAmount - l.discountAmount,
    })),
    subtotal: order.subtotal,
    discount_total: order.discountTotal,
    shipping_total: order.shippingTotal,
    tax_total: order.taxTotal,
    prices_include_tax: order.pricesIncludeTax,
    total: order.total,
    amount_due: amountDue(order),
    expires_at: expiresAt.toISOString(),
  };
}
