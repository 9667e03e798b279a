import { CurrencyCode, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { ACTIVITY_TYPES } from '../entities/activity.js';
import { LEAD_SOURCES, LEAD_STATUSES } from '../entities/lead.js';
import { crmListQuery, Email, Metadata, NullableTimestamp, OptionalText, Out, Phone, StaffId, Tags, Text, When } from './common.js';
import { ContactOut } from './contact.js';
import { AccountOut } from './account.js';
import { DealOut } from './deal.js';

const leadFields = {
  email: Email.nullable().optional(),
  first_name: OptionalText(),
  phone: Phone.nullable().optional(),
  company: OptionalText(),
  job_title: OptionalText(),
  source: z.enum(LEAD_SOURCES).optional().meta({ description: '`manual` when not sent' }),
  tags: Tags.optional(),
  metadata: Metadata.optional(),
  owner_id: StaffId.nullable().optional().meta({ description: 'A staff member of the store; the caller when a staff member creates the lead' }),
};

export const LeadInput = z.strictObject({ ...leadFields, last_name: Text() }).meta({ id: 'CrmLeadCreate' });
export type LeadInput = z.output<typeof LeadInput>;

export const LeadPatch = z.strictObject({ ...leadFields, last_name: Text().optional() }).meta({ id: 'CrmLeadPatch' });
export type LeadPatch = z.output<typeof LeadPatch>;

export const LeadOut = z
  .object({
    ...Out,
    owner_id: Uuid.nullable(),
    email: z.string().nullable(),
    first_name: z.string().nullable(),
    last_name: z.string(),
    phone: z.string().nullable(),
    company: z.string().nullable(),
    job_title: z.string().nullable(),
    source: z.enum(LEAD_SOURCES),
    status: z.enum(LEAD_STATUSES),
    score: z.number().int().meta({ description: '0 to 100; see the plugin README for how it is computed' }),
    disqualified_reason: z.string().nullable(),
    converted_at: NullableTimestamp,
    converted_contact_id: Uuid.nullable(),
    converted_account_id: Uuid.nullable(),
    converted_deal_id: Uuid.nullable(),
    tags: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()),
    last_activity_at: NullableTimestamp,
  })
  .meta({ id: 'CrmLead' });

export const LeadListQuery = crmListQuery({
  sorts: ['created_at', 'score', 'last_name'],
  defaultSort: '-created_at',
  search: true,
  filters: { status: z.enum(LEAD_STATUSES), source: z.enum(LEAD_SOURCES), owner_id: Uuid },
});

export const DisqualifyInput = z.strictObject({ reason: Text(1000) }).meta({ id: 'CrmDisqualify' });

export const ConvertInput = z
  .strictObject({
    create_account: z.boolean().default(false),
    account_name: Text().optional().meta({ description: "The account's name; the lead's company when absent" }),
    create_deal: z.boolean().default(false),
    deal_title: Text().optional().meta({ description: 'The deal\'s title; "<company or name> deal" when absent' }),
    deal_amount: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().meta({ description: 'Minor units; 0 when absent' }),
    deal_currency: CurrencyCode.optional().meta({ description: "The store's currency when absent" }),
    deal_pipeline_id: Uuid.optional().meta({ description: "The store's default pipeline when absent; the deal starts in the pipeline's first stage" }),
  })
  .meta({ id: 'CrmConvert' });
export type ConvertInput = z.output<typeof ConvertInput>;

export const ConversionOut = z
  .object({ lead: LeadOut, contact: ContactOut, account: AccountOut.nullable(), deal: DealOut.nullable() })
  .meta({ id: 'CrmConversion' });

export const ActivityInput = z
  .strictObject({
    type: z.enum(ACTIVITY_TYPES),
    subject: Text(),
    body: Text(10_000).optional(),
    occurred_at: When.optional().meta({ description: 'When it happened; now when absent' }),
  })
  .meta({ id: 'CrmActivityCreate' });
export type ActivityInput = z.output<typeof ActivityInput>;

export const ActivityOut = z
  .object({
    id: Uuid,
    entity_kind: z.enum(['lead', 'contact']),
    entity_id: Uuid,
    type: z.enum(ACTIVITY_TYPES),
    subject: z.string(),
    body: z.string().nullable(),
    occurred_at: Timestamp,
    recorded_by: Uuid.nullable().meta({ description: 'The staff member or API key that recorded it' }),
    created_at: Timestamp,
  })
  .meta({ id: 'CrmActivity' });

export const ActivityListQuery = crmListQuery({ sorts: ['occurred_at'], defaultSort: '-occurred_at', filters: { type: z.enum(ACTIVITY_TYPES) } });
