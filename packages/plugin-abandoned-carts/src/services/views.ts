import type { AbandonedCart } from '../entities/abandoned-cart.js';

export function abandonedCartOut(c: AbandonedCart) {
  return {
    id: c.id,
    cart_id: c.cartId,
    checkout_id: c.checkoutId ?? null,
    customer_id: c.customerId ?? null,
    email: c.email ?? null,
    status: c.status,
    currency: c.currency.trim(),
    item_count: c.itemCount,
    value_cents: c.valueCents,
    reminder_count: c.reminderCount,
    last_reminded_at: c.lastRemindedAt?.toISOString() ?? null,
    recovered_at: c.recoveredAt?.toISOString() ?? null,
    recovered_by: c.recoveredBy ?? null,
    recovered_value_cents: c.recoveredValueCents ?? null,
    restored_cart_id: c.restoredCartId ?? null,
    abandoned_at: c.abandonedAt.toISOString(),
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}
