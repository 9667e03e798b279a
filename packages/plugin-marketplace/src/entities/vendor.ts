import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const VENDOR_STATUSES = ['pending', 'active', 'suspended'] as const;
export type VendorStatus = (typeof VENDOR_STATUSES)[number];

/** A seller of the marketplace: its offers are sold in the store's carts, its money paid out to it. */
export const Vendor = defineEntity({
  name: 'MarketplaceVendor',
  tableName: 'marketplace_vendor',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    name: p.string(),
    /** Lower-case; unique in the store; the portal's sign-in. */
    email: p.string(),
    /** ISO 3166-1 alpha-2. */
    countryCode: p.string(),
    /** Hundredths of a percent (1250 = 12.5 %): kept exactly, never a float. */
    commissionBps: p.integer(),
    /** scrypt; null: the vendor cannot sign in to the portal. */
    passwordHash: p.string().nullable(),
    status: p.string().$type<VendorStatus>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Vendor = InferEntity<typeof Vendor>;
