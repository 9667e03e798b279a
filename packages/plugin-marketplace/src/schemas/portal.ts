import { Timestamp } from '@qhatu/core';
import { z } from 'zod';
import { Email } from './common.js';
import { VendorOut } from './vendor.js';

export const VendorLogin = z
  .strictObject({ email: Email, password: z.string().min(1).max(200) })
  .meta({ id: 'MarketplaceVendorLogin' });
export type VendorLogin = z.output<typeof VendorLogin>;

export const VendorSession = z
  .object({
    token: z.string().meta({ description: 'A vendor bearer token for /api/v1/vendor; shown only here' }),
    expires_at: Timestamp,
    vendor: VendorOut,
  })
  .meta({ id: 'MarketplaceVendorSession' });
