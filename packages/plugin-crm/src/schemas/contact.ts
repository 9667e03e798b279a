import { Uuid } from '@qhatu/core';
import { z } from 'zod';
import { crmListQuery, Email, Metadata, NullableTimestamp, OptionalText, Out, Phone, StaffId, Tags, Text } from './common.js';

const contactFields = {
  account_id: Uuid.nullable().optional().meta({ description: 'The account the contact belongs to' }),
  owner_id: StaffId.nullable().optional().meta({ description: 'The caller when a staff member creates the contact' }),
  email: Email.nullable().optional(),
  first_name: OptionalText(),
  phone: Phone.nullable().optional(),
  job_title: OptionalText(),
  tags: Tags.optional(),
  metadata: Metadata.optional(),
};

export const ContactInput = z.strictObject({ ...contactFields, last_name: Text() }).meta({ id: 'CrmContactCreate' });
export type ContactInput = z.output<typeof ContactInput>;
export const ContactPatch = z.strictObject({ ...contactFields, last_name: Text().optional() }).meta({ id: 'CrmContactPatch' });
export type ContactPatch = z.output<typeof ContactPatch>;

export const ContactOut = z
  .object({
    ...Out,
    account_id: Uuid.nullable(),
    owner_id: Uuid.nullable(),
    lead_id: Uuid.nullable().meta({ description: 'The lead it was converted from' }),
    email: z.string().nullable(),
    first_name: z.string().nullable(),
    last_name: z.string(),
    phone: z.string().nullable(),
    job_title: z.string().nullable(),
    tags: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()),
    last_activity_at: NullableTimestamp,
  })
  .meta({ id: 'CrmContact' });

export const ContactListQuery = crmListQuery({
  sorts: ['created_at', 'last_name'],
  defaultSort: '-created_at',
  filters: { account_id: Uuid, owner_id: Uuid },
});
