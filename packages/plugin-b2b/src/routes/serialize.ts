import type { B2BCustomer } from '../entities/b2b-customer.js';
import type { OrderPrice } from '../entities/account-order.js';
import type { PriceRule } from '../entities/price-list.js';
import type { Quote } from '../entities/quote.js';
import type { BuyerView } from '../services/b2b-customers.js';
import type { CreditState } from '../services/credit.js';
import type { PriceListView } from '../services/price-lists.js';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export function b2bCustomerOut(c: B2BCustomer) {
  return {
    id: c.id,
    company_name: c.companyName,
    ruc: c.ruc,
    email: c.email,
    phone: c.phone ?? null,
    credit_limit: c.creditLimit,
    price_list_id: c.priceListId ?? null,
    status: c.status,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

export function buyerOut({ buyer, customer }: BuyerView) {
  return {
    b2b_customer_id: buyer.b2bCustomerId,
    customer_id: buyer.customerId,
    email: customer.email,
    first_name: customer.firstName ?? null,
    last_name: customer.lastName ?? null,
    created_at: buyer.createdAt.toISOString(),
  };
}

export function creditOut(b2bCustomerId: string, c: CreditState) {
  return {
    b2b_customer_id: b2bCustomerId,
    currency: c.currency,
    credit_limit: c.creditLimit,
    open_balance: c.openBalance,
    available: c.available,
    open_orders: c.open.map(({ account: a, due }) => ({ order_id: a.orderId, quote_id: a.quoteId, total: a.total, credited: a.credited, due, placed_at: a.createdAt.toISOString() })),
  };
}

export function ruleOut(r: PriceRule) {
  return {
    id: r.id,
    price_list_id: r.priceListId,
    position: r.position,
    type: r.type,
    value: r.value,
    applies_to: r.appliesTo,
    category_id: r.categoryId ?? null,
    product_id: r.productId ?? null,
    created_at: r.createdAt.toISOString(),
  };
}

export function priceListOut({ list, rules }: PriceListView) {
  return {
    id: list.id,
    name: list.name,
    currency: list.currency,
    description: list.description ?? null,
    rules: rules.map(ruleOut),
    created_at: list.createdAt.toISOString(),
    updated_at: list.updatedAt.toISOString(),
  };
}

export function quoteOut(q: Quote) {
  return {
    id: q.id,
    number: q.number,
    status: q.status,
    b2b_customer_id: q.b2bCustomerId,
    price_list_id: q.priceListId ?? null,
    currency: q.currency,
    items: q.items.map((i) => ({
      variant_id: i.variant_id,
      product_id: i.product_id,
      title: i.title,
      sku: i.sku,
      quantity: i.quantity,
      catalog_price: i.catalog_price,
      unit_price: i.unit_price,
      total: i.total,
      rule_id: i.rule_id,
    })),
    subtotal: q.subtotal,
    discount: q.discount,
    total: q.total,
    notes: q.notes ?? null,
    valid_days: q.validDays,
    valid_until: iso(q.validUntil),
    sent_at: iso(q.sentAt),
    sent_by: q.sentBy ?? null,
    accepted_at: iso(q.acceptedAt),
    rejected_at: iso(q.rejectedAt),
    rejection_reason: q.rejectionReason ?? null,
    decided_by: q.decidedBy ?? null,
    order_id: q.orderId ?? null,
    converted_at: iso(q.convertedAt),
    created_at: q.createdAt.toISOString(),
    updated_at: q.updatedAt.toISOString(),
  };
}

export function orderPricesOut(orderId: string, rows: OrderPrice[]) {
  return {
    order_id: orderId,
    b2b_customer_id: rows[0].b2bCustomerId,
    quote_id: rows[0].quoteId ?? null,
    lines: rows.map((r) => ({
      variant_id: r.variantId,
      catalog_price: r.catalogPrice,
      unit_price: r.unitPrice,
      price_list_id: r.priceListId ?? null,
      rule: r.rule && r.ruleId
        ? {
            id: r.ruleId,
            type: String(r.rule.type),
            value: Number(r.rule.value),
            applies_to: String(r.rule.applies_to),
            category_id: (r.rule.category_id as string | null) ?? null,
            product_id: (r.rule.product_id as string | null) ?? null,
          }
        : null,
    })),
  };
}
