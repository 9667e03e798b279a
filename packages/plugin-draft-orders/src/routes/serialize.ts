import type { DraftOrder } from '../entities/draft-order.js';
import type { DraftOrderSettingsView } from '../services/settings.js';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export function draftOut(d: DraftOrder) {
  return {
    id: d.id,
    number: d.number,
    name: `D${d.number}`,
    status: d.status,
    customer_id: d.customerId ?? null,
    email: d.email ?? null,
    currency: d.currency.trim(),
    line_items: d.lines.map((l) => ({ ...l, offer_id: l.offer_id ?? null, price_override: l.price_override && { amount: l.price_override.amount, reason: l.price_override.reason, set_by: l.price_override.set_by } })),
    shipping_address: d.shippingAddress ?? null,
    shipping: d.shipping ?? null,
    discount: d.discount ?? null,
    note: d.note ?? null,
    subtotal: d.subtotal,
    discount_total: d.discountTotal,
    shipping_total: d.shippingTotal,
    tax_total: d.taxTotal,
    shipping_tax: d.shippingTax,
    prices_include_tax: d.pricesIncludeTax,
    total: d.total,
    order_id: d.orderId ?? null,
    invoice_url: d.invoiceUrl ?? null,
    invoice_sent_at: iso(d.invoiceSentAt),
    completed_at: iso(d.completedAt),
    cancelled_at: iso(d.cancelledAt),
    cancel_reason: d.cancelReason ?? null,
    created_by: d.createdBy ?? null,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}

export function settingsOut(s: DraftOrderSettingsView) {
  return { invoice_url: s.invoiceUrl, invoice_url_is_default: s.invoiceUrlIsDefault, link_ttl_days: s.linkTtlDays, updated_at: iso(s.updatedAt) };
}
