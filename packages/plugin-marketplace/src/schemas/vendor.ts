import { CountryCode, pageQuery, Timestamp } from '@qhatu/core';
import { z } from 'zod';
import { VENDOR_STATUSES } from '../entities/vendor.js';
import { Email, Password, Percentage, Text } from './common.js';

export const VendorCreate = z
  .strictObject({
    name: Text(200),
    email: Email,
    country_code: CountryCode,
    default_commission_pct: Percentage.meta({ description: "The store's commission on the vendor's sales, 0 to 100 with at most two decimals (12.5)" }),
    password: Password.optional().meta({ description: 'Opens the vendor portal (POST /api/v1/vendor/login); never shown again' }),
  })
  .meta({ id: 'MarketplaceVendorCreate' });
export type VendorCreate = z.output<typeof VendorCreate>;

export const VendorUpdate = z
  .strictObject({
    name: Text(200).optional(),
    email: Email.optional(),
    country_code: CountryCode.optional(),
    default_commission_pct: Percentage.optional().meta({ description: 'For orders placed from now on; placed orders keep the rate they were placed at' }),
    password: Password.optional(),
  })
  .meta({ id: 'MarketplaceVendorUpdate' });
export type VendorUpdate = z.output<typeof VendorUpdate>;

export const VendorStatusUpdate = z
  .strictObject({ status: z.enum(VENDOR_STATUSES).meta({ description: 'pending → active | suspended, active → suspended, suspended → active; anything else is 409' }) })
  .meta({ id: 'MarketplaceVendorStatusUpdate' });

export const VendorOut = z
  .object({
    id: z.uuid(),
    name: z.string(),
    email: z.string(),
    country_code: z.string(),
    default_commission_pct: z.number().meta({ description: 'Percent, at most two decimals' }),
    status: z.enum(VENDOR_STATUSES),
    has_password: z.boolean().meta({ description: 'Whether the vendor can sign in to the portal' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'MarketplaceVendor' });

const VendorStatus = z.enum(VENDOR_STATUSES);
export const VendorListQuery = pageQuery().extend({
  status: VendorStatus.optional(),
  'filter[status]': VendorStatus.optional(),
  sort: z.enum(['created_at', '-created_at']).default('-created_at'),
});
export type VendorListQuery = z.output<typeof VendorListQuery>;
