import type { Account } from '../entities/account.js';
import type { Activity } from '../entities/activity.js';
import type { Contact } from '../entities/contact.js';
import type { Deal } from '../entities/deal.js';
import type { Lead } from '../entities/lead.js';
import type { Pipeline, Stage } from '../entities/pipeline.js';
import type { Task } from '../entities/task.js';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
const stamps = (e: { id: string; createdAt: Date; updatedAt: Date }) => ({ id: e.id, created_at: e.createdAt.toISOString(), updated_at: e.updatedAt.toISOString() });

export const leadOut = (l: Lead) => ({
  ...stamps(l),
  owner_id: l.ownerId ?? null,
  email: l.email ?? null,
  first_name: l.firstName ?? null,
  last_name: l.lastName,
  phone: l.phone ?? null,
  company: l.company ?? null,
  job_title: l.jobTitle ?? null,
  source: l.source,
  status: l.status,
  score: l.score,
  disqualified_reason: l.disqualifiedReason ?? null,
  converted_at: iso(l.convertedAt),
  converted_contact_id: l.convertedContactId ?? null,
  converted_account_id: l.convertedAccountId ?? null,
  converted_deal_id: l.convertedDealId ?? null,
  tags: l.tags,
  metadata: l.metadata,
  last_activity_at: iso(l.lastActivityAt),
});

export const contactOut = (c: Contact) => ({
  ...stamps(c),
  account_id: c.accountId ?? null,
  owner_id: c.ownerId ?? null,
  lead_id: c.leadId ?? null,
  email: c.email ?? null,
  first_name: c.firstName ?? null,
  last_name: c.lastName,
  phone: c.phone ?? null,
  job_title: c.jobTitle ?? null,
  tags: c.tags,
  metadata: c.metadata,
  last_activity_at: iso(c.lastActivityAt),
});

export const accountOut = (a: Account) => ({
  ...stamps(a),
  owner_id: a.ownerId ?? null,
  name: a.name,
  domain: a.domain ?? null,
  industry: a.industry ?? null,
  phone: a.phone ?? null,
  website: a.website ?? null,
  tags: a.tags,
  metadata: a.metadata,
});

export const stageOut = (s: Stage) => ({ ...stamps(s), pipeline_id: s.pipelineId, name: s.name, position: s.position, probability: s.probability });

export const pipelineOut = ({ pipeline, stages }: { pipeline: Pipeline; stages: Stage[] }) => ({
  ...stamps(pipeline),
  name: pipeline.name,
  is_default: pipeline.isDefault,
  stages: stages.map(stageOut),
});

export const dealOut = (d: Deal) => ({
  ...stamps(d),
  pipeline_id: d.pipelineId,
  stage_id: d.stageId,
  contact_id: d.contactId ?? null,
  account_id: d.accountId ?? null,
  owner_id: d.ownerId ?? null,
  title: d.title,
  amount: d.amount,
  currency: d.currency,
  status: d.status,
  probability: d.probability,
  expected_close: iso(d.expectedClose),
  lost_reason: d.lostReason ?? null,
  tags: d.tags,
  metadata: d.metadata,
  closed_at: iso(d.closedAt),
});

export const taskOut = (t: Task) => ({
  ...stamps(t),
  entity_kind: t.entityKind,
  entity_id: t.entityId,
  assigned_to: t.assignedTo ?? null,
  title: t.title,
  description: t.description ?? null,
  status: t.status,
  priority: t.priority,
  due_at: iso(t.dueAt),
  completed_at: iso(t.completedAt),
});

export const activityOut = (a: Activity) => ({
  id: a.id,
  entity_kind: a.entityKind,
  entity_id: a.entityId,
  type: a.type,
  subject: a.subject,
  body: a.body ?? null,
  occurred_at: a.occurredAt.toISOString(),
  recorded_by: a.recordedBy ?? null,
  created_at: a.createdAt.toISOString(),
});
