import { CurrencyCode, listQuery, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { ENTRY_KINDS } from '../entities/entry.js';

export const CustomerParams = z.object({ customer_id: Uuid });

export const AdjustmentInput = z
  .strictObject({
    kind: z.enum(['grant', 'deduct']).meta({ description: 'grant adds credit, deduct takes it back (never below zero)' }),
    currency: CurrencyCode,
    amount: z
      .number({ message: 'must be a whole number of minor units' })
      .int('must be a whole number of minor units')
      .min(1, 'must be at least 1')
      .max(Number.MAX_SAFE_INTEGER)
      .meta({ description: 'Minor units of the currency' }),
    reason: z.string().trim().min(1, 'must say why').max(500, 'must be at most 500 characters').meta({ description: 'Shown to the customer in the e-mail and their history' }),
  })
  .meta({ id: 'StoreCreditAdjustment' });

export const BalanceOut = z
  .object({ currency: z.string(), balance: z.number().int().meta({ description: 'Minor units; never below zero' }), updated_at: Timestamp })
  .meta({ id: 'StoreCreditBalance' });

export const BalancesOut = z
  .object({ customer_id: Uuid, balances: z.array(BalanceOut) })
  .meta({ id: 'StoreCreditAccount' });

export const EntryOut = z
  .object({
    id: Uuid,
    customer_id: Uuid,
    currency: z.string(),
    kind: z.enum(ENTRY_KINDS),
    amount: z.number().int().meta({ description: 'Signed minor units: positive adds to the balance, negative takes from it' }),
    balance_after: z.number().int(),
    reason: z.string(),
    source: z.object({ type: z.string(), id: z.string().nullable() }),
    payment_id: Uuid.nullable(),
    order_id: Uuid.nullable(),
    created_by: Uuid.nullable(),
    created_at: Timestamp,
  })
  .meta({ id: 'StoreCreditEntry' });

export const AdjustmentOut = EntryOut.extend({ balances: z.array(BalanceOut) }).meta({ id: 'StoreCreditAdjustmentResult' });

export const EntryListQuery = listQuery({
  filters: { currency: CurrencyCode, kind: z.enum(ENTRY_KINDS) },
  sorts: ['created_at'],
  defaultSort: '-created_at',
});
