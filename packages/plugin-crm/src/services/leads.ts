import { LockMode } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { AppError, Database, paginate, TenantContext, type Page, type PageRequest, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Activity, type ActivityType } from '../entities/activity.js';
import { Lead } from '../entities/lead.js';
import { Task } from '../entities/task.js';
import { leadMachine } from '../machines/lead.js';
import type { ActivityInput, LeadInput, LeadPatch } from '../schemas/lead.js';
import type { LeadTaskInput } from '../schemas/task.js';
import { leadEvent } from './events.js';
import { readLeadPage, type LeadFilter } from './reads.js';
import { assignFields, CrmReferences } from './references.js';
import { scoreLead, type ActivityCounts } from './scoring.js';
import { CrmSettingsService } from './settings.js';
import { Tasks } from './tasks.js';

export const leadNotFound = () => AppError.notFound('Lead', 'LEAD_NOT_FOUND');

/** Leads: their data, score and status; conversion is `LeadConversion`'s. */
@injectable()
export class Leads {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(CrmReferences) private readonly refs: CrmReferences,
    @inject(CrmSettingsService) private readonly settings: CrmSettingsService,
    @inject(Tasks) private readonly tasks: Tasks,
  ) {}

  list(page: PageRequest, filter: LeadFilter): Promise<Page<Lead>> {
    return this.db.read((sql) => readLeadPage(sql, page, filter));
  }

  async get(id: string): Promise<Lead> {
    return this.db.tenant((tx) => this.find(tx, id));
  }

  async create(input: LeadInput): Promise<Lead> {
    const ownerId = await this.refs.staffMember(input.owner_id, 'owner_id', true);
    return this.db.tenant(async (tx) => {
      const now = tx.now();
      const lead = tx.em.create(Lead, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        ownerId: ownerId ?? null,
        email: input.email ?? null,
        firstName: input.first_name ?? null,
        lastName: input.last_name,
        phone: input.phone ?? null,
        company: input.company ?? null,
        jobTitle: input.job_title ?? null,
        source: input.source ?? 'manual',
        status: 'new',
        score: 0,
        disqualifiedReason: null,
        convertedAt: null,
        convertedContactId: null,
        convertedAccountId: null,
        convertedDealId: null,
        tags: input.tags ?? [],
        metadata: input.metadata ?? {},
        lastActivityAt: null,
        createdAt: now,
        updatedAt: now,
      });
      lead.score = scoreLead(lead, {});
      await tx.em.flush();
      tx.publish('crm.lead.created', leadEvent(lead));
      return lead;
    });
  }

  async update(id: string, patch: LeadPatch): Promise<Lead> {
    const ownerId = await this.refs.staffMember(patch.owner_id, 'owner_id', false);
    return this.db.tenant(async (tx) => {
      const lead = await this.find(tx, id, true);
      assignFields(lead, { ...patch, owner_id: ownerId });
      lead.score = scoreLead(lead, await this.activityCounts(tx, lead.id));
      lead.updatedAt = tx.now();
      await tx.em.flush();
      tx.publish('crm.lead.updated', leadEvent(lead));
      return lead;
    });
  }

  /** A lead goes with its activities and tasks; the contact, account and deal it became stay. */
  async remove(id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      await this.find(tx, id, true);
      await tx.em.nativeDelete(Activity, { entityKind: 'lead', entityId: id });
      await tx.em.nativeDelete(Task, { entityKind: 'lead', entityId: id });
      await tx.em.nativeDelete(Lead, { id });
      tx.publish('crm.lead.deleted', { id, deleted_at: tx.now().toISOString() });
    });
  }

  /**
   * Rescores the lead, then makes it `sql` at or above the store's threshold and `mql` below.
   * Allowed from new, working, mql, sql and disqualified (which clears the reason).
   */
  async qualify(id: string): Promise<Lead> {
    return this.db.tenant(async (tx) => {
      const lead = await this.find(tx, id, true);
      if (!leadMachine.can(lead, 'qualify_sql')) throw this.refused(lead, 'qualify');
      lead.score = scoreLead(lead, await this.activityCounts(tx, lead.id));
      const { sqlThreshold } = await this.settings.read();
      await leadMachine.apply(tx, lead, lead.score >= sqlThreshold ? 'qualify_sql' : 'qualify_mql');
      lead.disqualifiedReason = null;
      lead.updatedAt = tx.now();
      await tx.em.flush();
      tx.publish('crm.lead.qualified', { ...leadEvent(lead), sql_threshold: sqlThreshold });
      return lead;
    });
  }

  async disqualify(id: string, reason: string): Promise<Lead> {
    return this.db.tenant(async (tx) => {
      const lead = await this.find(tx, id, true);
      if (!leadMachine.can(lead, 'disqualify')) throw this.refused(lead, 'disqualify');
      await leadMachine.apply(tx, lead, 'disqualify');
      lead.disqualifiedReason = reason;
      lead.updatedAt = tx.now();
      await tx.em.flush();
      tx.publish('crm.lead.disqualified', leadEvent(lead));
      return lead;
    });
  }

  /**
   * Records a call, e-mail, meeting or note: bumps `last_activity_at` (to the latest occurrence),
   * rescores the lead, and starts work on a new lead (`new` → `working`).
   */
  async recordActivity(id: string, input: ActivityInput): Promise<Activity> {
    return this.db.tenant(async (tx) => {
      const lead = await this.find(tx, id, true);
      if (lead.status === 'converted') {
        throw new AppError(409, 'LEAD_CONVERTED', 'The lead was converted; record activities on its contact', [{ message: 'converted', contact_id: lead.convertedContactId }]);
      }
      const now = tx.now();
      const activity = tx.em.create(Activity, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        entityKind: 'lead',
        entityId: lead.id,
        type: input.type,
        subject: input.subject,
        body: input.body ?? null,
        occurredAt: input.occurred_at ? new Date(input.occurred_at) : now,
        recordedBy: TenantContext.principalId(),
        createdAt: now,
      });
      if (!lead.lastActivityAt || activity.occurredAt > lead.lastActivityAt) lead.lastActivityAt = activity.occurredAt;
      if (leadMachine.can(lead, 'start_working')) await leadMachine.apply(tx, lead, 'start_working');
      const counts = await this.activityCounts(tx, lead.id);
      counts[input.type] = (counts[input.type] ?? 0) + 1;
      lead.score = scoreLead(lead, counts);
      lead.updatedAt = now;
      await tx.em.flush();
      tx.publish('crm.lead.updated', leadEvent(lead));
      return activity;
    });
  }

  async activities(id: string, page: PageRequest, type?: ActivityType): Promise<Page<Activity>> {
    return this.db.tenant(async (tx) => {
      await this.find(tx, id);
      return paginate(tx.em, Activity, { entityKind: 'lead', entityId: id, ...(type ? { type } : {}) }, page);
    });
  }

  async addTask(id: string, input: LeadTaskInput): Promise<Task> {
    const assignedTo = await this.refs.staffMember(input.assigned_to, 'assigned_to', true);
    return this.db.tenant(async (tx) => {
      const lead = await this.find(tx, id);
      if (lead.status === 'converted') {
        throw new AppError(409, 'LEAD_CONVERTED', 'The lead was converted; add tasks to its contact', [{ message: 'converted', contact_id: lead.convertedContactId }]);
      }
      const task = this.tasks.insert(tx, 'lead', lead.id, { ...input, assigned_to: assignedTo });
      await tx.em.flush();
      return task;
    });
  }

  async find(tx: Tx, id: string, lock = false): Promise<Lead> {
    const lead = await tx.em.findOne(Lead, { id }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
    if (!lead) throw leadNotFound();
    return lead;
  }

  private async activityCounts(tx: Tx, leadId: string): Promise<ActivityCounts> {
    const rows = await tx.em.execute<{ type: ActivityType; n: string }[]>(
      `select type, count(*) as n from crm_activity where tenant_id = ? and entity_kind = 'lead' and entity_id = ? group by type`,
      [tx.tenantId, leadId],
    );
    return Object.fromEntries(rows.map((r) => [r.type, Number(r.n)]));
  }

  private refused(lead: Lead, action: string): AppError {
    const allowed = action === 'qualify' ? 'new, working, mql, sql, disqualified' : 'new, working, mql, sql';
    return new AppError(409, 'INVALID_STATE_TRANSITION', `Cannot ${action} a lead that is ${lead.status}`, [{ message: `allowed from: ${allowed}`, from: lead.status, action }]);
  }
}
