import type { CustomFieldValues } from '@qhatu/core';
import type { Fulfillment } from '../entities/fulfillment.js';
import type { LineItem } from '../entities/line-item.js';
import { amountDue } from '../services/ledger.js';
import type { OrderView } from '../services/order-reads.js';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export function lineItemOut(l: LineItem) {
  return {
    id: l.id,
    variant_id: l.variantId ?? null,
    product_id: l.productId ?? null,
    title: l.title,
    variant_title: l.variantTitle,
    sku: l.sku ?? null,
    quantity: l.quantity,
    fulfilled_quantity: l.fulfilledQuantity,
    backordered_quantity: l.backorderedQuantity,
    unit_price_amount: l.unitPriceAmount,
    total_amount: l.totalAmount,
    requires_shipping: l.requiresShipping,
    discount_amount: l.discountAmount,
    tax_class: l.taxClass,
    tax_rate: l.taxRate,
    tax_amount: l.taxAmount,
    offer_id: l.offerId ?? null,
  };
}

export function fulfillmentOut(f: Fulfillment) {
  return {
    id: f.id,
    order_id: f.orderId,
    status: f.status,
    carrier: f.carrier ?? null,
    tracking_number: f.trackingNumber ?? null,
    tracking_url: f.trackingUrl ?? null,
    estimated_delivery: iso(f.estimatedDelivery),
    line_items: f.items.map((i) => ({ line_item_id: i.line_item_id ?? null, variant_id: i.variant_id ?? null, title: i.title, quantity: i.quantity, return_id: i.return_id ?? null })),
    shipped_at: f.shippedAt.toISOString(),
    delivered_at: iso(f.deliveredAt),
    created_at: f.createdAt.toISOString(),
    updated_at: f.updatedAt.toISOString(),
  };
}

/** The order as answered; `customFields` as the caller may see them (`CustomFields.present`). */
export function orderOut({ order: o, lines, fulfillments }: OrderView, customFields: CustomFieldValues) {
  return {
    id: o.id,
    number: o.number,
    status: o.status,
    customer_id: o.customerId ?? null,
    customer_email: o.customerEmail,
    currency: o.currency,
    subtotal: o.subtotal,
    shipping_total: o.shippingTotal,
    discount_total: o.discountTotal,
    tax_total: o.taxTotal,
    shipping_tax: o.shippingTax,
    prices_include_tax: o.pricesIncludeTax,
    total: o.total,
    amount_paid: o.amountPaid,
    amount_refunded: o.amountRefunded,
    amount_waived: o.amountWaived,
    amount_due: amountDue(o),
    line_items: lines.map(lineItemOut),
    shipping_address: o.shippingAddress ?? null,
    fulfillments: fulfillments.map(fulfillmentOut),
    history: o.history,
    cancel_reason: o.cancelReason ?? null,
    cancelled_at: iso(o.cancelledAt),
    paid_at: iso(o.paidAt),
    fulfilled_at: iso(o.fulfilledAt),
    custom_fields: customFields,
    created_at: o.createdAt.toISOString(),
    updated_at: o.updatedAt.toISOString(),
  };
}
