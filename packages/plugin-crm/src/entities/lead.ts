import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const LEAD_SOURCES = ['manual', 'import', 'api', 'web_form'] as const;
export type LeadSource = (typeof LEAD_SOURCES)[number];
export const LEAD_STATUSES = ['new', 'working', 'mql', 'sql', 'converted', 'disqualified'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

/** A person who may buy: scored, qualified, and converted into a contact (and an account and a deal). */
export const Lead = defineEntity({
  name: 'CrmLead',
  tableName: 'crm_lead',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    ownerId: p.uuid().nullable(),
    email: p.string().nullable(),
    firstName: p.string().nullable(),
    lastName: p.string(),
    phone: p.string().nullable(),
    company: p.string().nullable(),
    jobTitle: p.string().nullable(),
    source: p.string().$type<LeadSource>(),
    status: p.string().$type<LeadStatus>(),
    score: p.integer(),
    disqualifiedReason: p.string().nullable(),
    convertedAt: p.datetime().nullable(),
    convertedContactId: p.uuid().nullable(),
    convertedAccountId: p.uuid().nullable(),
    convertedDealId: p.uuid().nullable(),
    tags: p.json<string[]>(),
    metadata: p.json<Record<string, unknown>>(),
    lastActivityAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Lead = InferEntity<typeof Lead>;
