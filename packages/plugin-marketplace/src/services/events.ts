import type { Tx } from '@qhatu/core';
import type { Offer } from '../entities/offer.js';
import type { Payout } from '../entities/payout.js';
import type { Vendor } from '../entities/vendor.js';
import { bpsToPct } from './money.js';

/** Every event type this plugin publishes (docs/events.md). */
export const MARKETPLACE_EVENTS = [
  'marketplace.vendor.created',
  'marketplace.vendor.status_changed',
  'marketplace.offer.linked',
  'marketplace.offer.updated',
  'marketplace.offer.unlinked',
  'marketplace.commission.recorded',
  'marketplace.commission.reversed',
  'marketplace.commission.revised',
  'marketplace.payout.processing',
  'marketplace.payout.paid',
  'marketplace.payout.failed',
] as const;
export type MarketplaceEvent = (typeof MARKETPLACE_EVENTS)[number];

export function vendorData(v: Vendor): Record<string, unknown> {
  return { id: v.id, name: v.name, email: v.email, country_code: v.countryCode, default_commission_pct: bpsToPct(v.commissionBps), status: v.status };
}

export function offerData(o: Offer): Record<string, unknown> {
  return {
    id: o.id,
    vendor_id: o.vendorId,
    catalog_product_id: o.productId,
    price_override: o.priceOverride ?? null,
    stock: o.stock,
    reserved: o.reserved,
    commission_pct: o.commissionBps == null ? null : bpsToPct(o.commissionBps),
  };
}

export function payoutData(p: Payout): Record<string, unknown> {
  return {
    id: p.id,
    vendor_id: p.vendorId,
    status: p.status,
    currency: p.currency,
    amount: p.amount,
    reference: p.reference ?? null,
    failure_reason: p.failureReason ?? null,
  };
}

export const publish = (tx: Tx, type: MarketplaceEvent, data: Record<string, unknown>) => tx.publish(type, data);
