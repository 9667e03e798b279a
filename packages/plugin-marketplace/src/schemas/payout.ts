import { pageQuery, Timestamp } from '@qhatu/core';
import { z } from 'zod';
import { ENTRY_KINDS } from '../entities/ledger-entry.js';
import { PAYOUT_STATUSES } from '../entities/payout.js';
import { Text } from './common.js';

export const PayoutStatusUpdate = z
  .strictObject({
    status: z.enum(['processing', 'paid', 'failed']),
    reference: Text(200).optional().meta({ description: "The transfer's reference; required for paid" }),
    failure_reason: Text(1000).optional().meta({ description: 'Required for failed' }),
  })
  .superRefine((v, ctx) => {
    if (v.status === 'paid' && !v.reference) ctx.addIssue({ code: 'custom', path: ['reference'], message: 'is required to mark a payout paid' });
    if (v.status === 'failed' && !v.failure_reason) ctx.addIssue({ code: 'custom', path: ['failure_reason'], message: 'is required to mark a payout failed' });
  })
  .meta({ id: 'MarketplacePayoutStatusUpdate' });
export type PayoutStatusUpdate = z.output<typeof PayoutStatusUpdate>;

export const PayoutOut = z
  .object({
    id: z.uuid(),
    vendor_id: z.uuid(),
    status: z.enum(PAYOUT_STATUSES),
    currency: z.string(),
    amount: z.number().int().meta({ description: "Minor units: the vendor's share of its paid lines, less what refunds took back" }),
    entry_count: z.number().int(),
    reference: z.string().nullable(),
    failure_reason: z.string().nullable(),
    processing_at: Timestamp.nullable(),
    paid_at: Timestamp.nullable(),
    failed_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'MarketplacePayout' });

const PayoutStatus = z.enum(PAYOUT_STATUSES);
export const PayoutListQuery = pageQuery().extend({ status: PayoutStatus.optional(), 'filter[status]': PayoutStatus.optional() });
export type PayoutListQuery = z.output<typeof PayoutListQuery>;

export const SettlementOut = z
  .object({
    order_id: z.uuid(),
    currency: z.string(),
    paid: z.number().int().meta({ description: "What the order's payments brought in, net of refunds" }),
    store_revenue: z.number().int().meta({ description: "The store's part: its own lines, the shipping" }),
    commissions: z.number().int(),
    payouts: z.number().int(),
    vendors: z.array(z.object({ vendor_id: z.uuid(), commission: z.number().int(), payout: z.number().int() })),
    entries: z.array(
      z.object({
        id: z.uuid(),
        kind: z.enum(ENTRY_KINDS),
        line_item_id: z.uuid().nullable(),
        vendor_id: z.uuid().nullable(),
        offer_id: z.uuid().nullable(),
        payout_id: z.uuid().nullable(),
        commission_pct: z.number().nullable(),
        store_amount: z.number().int(),
        commission: z.number().int(),
        payout: z.number().int(),
        created_at: Timestamp,
      }),
    ),
  })
  .meta({ id: 'MarketplaceSettlement' });
