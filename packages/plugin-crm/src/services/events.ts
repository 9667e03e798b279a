import type { Deal } from '../entities/deal.js';
import type { Lead } from '../entities/lead.js';
import type { Task } from '../entities/task.js';

/** The events this plugin publishes through the outbox (docs/events.md). */
export const CRM_EVENTS = [
  'crm.lead.created',
  'crm.lead.updated',
  'crm.lead.deleted',
  'crm.lead.qualified',
  'crm.lead.disqualified',
  'crm.lead.converted',
  'crm.deal.created',
  'crm.deal.updated',
  'crm.deal.deleted',
  'crm.deal.stage_changed',
  'crm.deal.won',
  'crm.deal.lost',
  'crm.deal.reopened',
  'crm.task.created',
  'crm.task.completed',
  'crm.task.cancelled',
  'crm.settings.updated',
] as const;

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export const leadEvent = (l: Lead) => ({
  id: l.id,
  status: l.status,
  score: l.score,
  source: l.source,
  owner_id: l.ownerId ?? null,
  email: l.email ?? null,
  company: l.company ?? null,
  disqualified_reason: l.disqualifiedReason ?? null,
  converted_contact_id: l.convertedContactId ?? null,
  converted_account_id: l.convertedAccountId ?? null,
  converted_deal_id: l.convertedDealId ?? null,
  converted_at: iso(l.convertedAt),
  updated_at: l.updatedAt.toISOString(),
});

export const dealEvent = (d: Deal) => ({
  id: d.id,
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
  lost_reason: d.lostReason ?? null,
  closed_at: iso(d.closedAt),
  updated_at: d.updatedAt.toISOString(),
});

export const taskEvent = (t: Task) => ({
  id: t.id,
  entity_kind: t.entityKind,
  entity_id: t.entityId,
  assigned_to: t.assignedTo ?? null,
  status: t.status,
  priority: t.priority,
  due_at: iso(t.dueAt),
  completed_at: iso(t.completedAt),
  updated_at: t.updatedAt.toISOString(),
});
