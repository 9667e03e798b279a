import { Uuid } from '@qhatu/core';
import { z } from 'zod';
import { crmListQuery, Metadata, OptionalText, Out, Phone, StaffId, Tags, Text } from './common.js';

const Domain = z.string().trim().toLowerCase().max(253).regex(/^(?!-)[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63})+$/, 'must be a domain name, e.g. example.com');

const accountFields = {
  owner_id: StaffId.nullable().optional().meta({ description: 'The caller when a staff member creates the account' }),
  domain: Domain.nullable().optional(),
  industry: OptionalText(),
  phone: Phone.nullable().optional(),
  website: z.url({ protocol: /^https?$/, message: 'must be an http(s) address' }).max(2048).nullable().optional(),
  tags: Tags.optional(),
  metadata: Metadata.optional(),
};

export const AccountInput = z.strictObject({ ...accountFields, name: Text() }).meta({ id: 'CrmAccountCreate' });
export type AccountInput = z.output<typeof AccountInput>;
export const AccountPatch = z.strictObject({ ...accountFields, name: Text().optional() }).meta({ id: 'CrmAccountPatch' });
export type AccountPatch = z.output<typeof AccountPatch>;

export const AccountOut = z
  .object({
    ...Out,
    owner_id: Uuid.nullable(),
    name: z.string(),
    domain: z.string().nullable(),
    industry: z.string().nullable(),
    phone: z.string().nullable(),
    website: z.string().nullable(),
    tags: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'CrmAccount' });

export const AccountListQuery = crmListQuery({ sorts: ['created_at', 'name'], defaultSort: '-created_at', filters: { owner_id: Uuid } });
