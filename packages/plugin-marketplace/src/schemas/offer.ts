import { pageQuery, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { Percentage, Stock, UnitPrice } from './common.js';

export const OfferCreate = z
  .strictObject({
    vendor_id: Uuid,
    catalog_product_id: Uuid,
    price_override: UnitPrice.nullable().optional().meta({ description: "What a unit costs on this offer, whichever variant; null or absent: the variant's catalog price" }),
    stock: Stock.meta({ description: "The vendor's units for the store" }),
    commission_pct: Percentage.nullable().optional().meta({ description: "The store's commission on this offer; null or absent: the vendor's default" }),
  })
  .meta({ id: 'MarketplaceVendorProductCreate' });
export type OfferCreate = z.output<typeof OfferCreate>;

/** What a vendor may change of its own offer: price and stock only. */
export const OfferUpdate = z
  .strictObject({
    price_override: UnitPrice.nullable().optional(),
    stock: Stock.optional().meta({ description: 'Not below the units held by orders awaiting payment (422 STOCK_BELOW_RESERVED)' }),
  })
  .meta({ id: 'MarketplaceVendorProductUpdate' });
export type OfferUpdate = z.output<typeof OfferUpdate>;

export const OfferOut = z
  .object({
    id: z.uuid(),
    vendor_id: z.uuid(),
    catalog_product_id: z.uuid(),
    price_override: z.number().int().nullable(),
    stock: z.number().int().meta({ description: "The vendor's units, those held included" }),
    reserved: z.number().int().meta({ description: 'Units held by orders awaiting payment' }),
    available: z.number().int().meta({ description: 'stock − reserved: what carts may still buy' }),
    commission_pct: z.number().nullable().meta({ description: "null: the vendor's default_commission_pct" }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'MarketplaceVendorProduct' });

export const OfferListQuery = pageQuery();
