import type { LedgerEntry } from '../entities/ledger-entry.js';
import type { Offer } from '../entities/offer.js';
import type { Payout } from '../entities/payout.js';
import type { Vendor } from '../entities/vendor.js';
import { sums, type Settlement } from '../services/ledger.js';
import { bpsToPct } from '../services/money.js';
import type { VendorSession } from '../services/portal.js';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export function vendorOut(v: Vendor) {
  return {
    id: v.id,
    name: v.name,
    email: v.email,
    country_code: v.countryCode,
    default_commission_pct: bpsToPct(v.commissionBps),
    status: v.status,
    has_password: Boolean(v.passwordHash),
    created_at: v.createdAt.toISOString(),
    updated_at: v.updatedAt.toISOString(),
  };
}

export function offerOut(o: Offer) {
  return {
    id: o.id,
    vendor_id: o.vendorId,
    catalog_product_id: o.productId,
    price_override: o.priceOverride ?? null,
    stock: o.stock,
    reserved: o.reserved,
    available: o.stock - o.reserved,
    commission_pct: o.commissionBps == null ? null : bpsToPct(o.commissionBps),
    created_at: o.createdAt.toISOString(),
    updated_at: o.updatedAt.toISOString(),
  };
}

export function payoutOut(p: Payout) {
  return {
    id: p.id,
    vendor_id: p.vendorId,
    status: p.status,
    currency: p.currency,
    amount: p.amount,
    entry_count: p.entryCount,
    reference: p.reference ?? null,
    failure_reason: p.failureReason ?? null,
    processing_at: iso(p.processingAt),
    paid_at: iso(p.paidAt),
    failed_at: iso(p.failedAt),
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

export function sessionOut(s: VendorSession) {
  return { token: s.token, expires_at: s.expiresAt.toISOString(), vendor: vendorOut(s.vendor) };
}

function entryOut(e: LedgerEntry) {
  return {
    id: e.id,
    kind: e.kind,
    line_item_id: e.lineItemId ?? null,
    vendor_id: e.vendorId ?? null,
    offer_id: e.offerId ?? null,
    payout_id: e.payoutId ?? null,
    commission_pct: e.commissionBps == null ? null : bpsToPct(e.commissionBps),
    store_amount: e.storeAmount,
    commission: e.commission,
    payout: e.payout,
    created_at: e.createdAt.toISOString(),
  };
}

export function settlementOut({ order, entries }: Settlement) {
  const { store, vendors } = sums(entries);
  const list = [...vendors].map(([vendor_id, v]) => ({ vendor_id, ...v }));
  return {
    order_id: order.id,
    currency: order.currency,
    paid: order.amountPaid - order.amountRefunded,
    store_revenue: store,
    commissions: list.reduce((s, v) => s + v.commission, 0),
    payouts: list.reduce((s, v) => s + v.payout, 0),
    vendors: list,
    entries: entries.map(entryOut),
  };
}
