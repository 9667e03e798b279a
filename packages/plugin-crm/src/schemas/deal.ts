import { CurrencyCode, Money, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { DEAL_STATUSES } from '../entities/deal.js';
import { crmListQuery, Metadata, NullableTimestamp, Out, StaffId, Tags, Text, When } from './common.js';

const Probability = z.number().int().min(0).max(100);

const dealFields = {
  contact_id: Uuid.nullable().optional(),
  account_id: Uuid.nullable().optional(),
  owner_id: StaffId.nullable().optional().meta({ description: 'The caller when a staff member creates the deal' }),
  probability: Probability.optional().meta({ description: "The stage's probability when absent" }),
  expected_close: When.nullable().optional(),
  tags: Tags.optional(),
  metadata: Metadata.optional(),
};

export const DealInput = z
  .strictObject({
    ...dealFields,
    pipeline_id: Uuid.optional().meta({ description: "The stage's pipeline, else the store's default pipeline, when absent" }),
    stage_id: Uuid.optional().meta({ description: "A stage of the pipeline; its first stage when absent" }),
    title: Text(),
    amount: Money.default(0).meta({ description: 'Minor units' }),
    currency: CurrencyCode.optional().meta({ description: "The store's currency when absent" }),
  })
  .meta({ id: 'CrmDealCreate' });
export type DealInput = z.output<typeof DealInput>;

export const DealPatch = z
  .strictObject({
    ...dealFields,
    pipeline_id: Uuid.optional().meta({ description: 'Moving to another pipeline needs a stage_id of that pipeline' }),
    stage_id: Uuid.optional(),
    title: Text().optional(),
    amount: Money.optional(),
    currency: CurrencyCode.optional(),
  })
  .meta({ id: 'CrmDealPatch' });
export type DealPatch = z.output<typeof DealPatch>;

export const DealOut = z
  .object({
    ...Out,
    pipeline_id: Uuid,
    stage_id: Uuid,
    contact_id: Uuid.nullable(),
    account_id: Uuid.nullable(),
    owner_id: Uuid.nullable(),
    title: z.string(),
    amount: z.number().int(),
    currency: z.string(),
    status: z.enum(DEAL_STATUSES),
    probability: z.number().int(),
    expected_close: NullableTimestamp,
    lost_reason: z.string().nullable(),
    tags: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()),
    closed_at: NullableTimestamp,
  })
  .meta({ id: 'CrmDeal' });

export const DealListQuery = crmListQuery({
  sorts: ['created_at', 'amount', 'expected_close'],
  defaultSort: '-created_at',
  filters: { pipeline_id: Uuid, stage_id: Uuid, owner_id: Uuid, contact_id: Uuid, account_id: Uuid, status: z.enum(DEAL_STATUSES) },
});

export const MoveInput = z
  .strictObject({ stage_id: Uuid, probability: Probability.optional().meta({ description: "The new stage's probability when absent" }) })
  .meta({ id: 'CrmMove' });
export type MoveInput = z.output<typeof MoveInput>;
export const LostInput = z.strictObject({ reason: Text(1000) }).meta({ id: 'CrmLost' });
