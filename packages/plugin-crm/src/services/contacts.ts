import { randomUUID } from 'node:crypto';
import { AppError, Database, paginate, type Page, type PageRequest, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Activity, type ActivityType } from '../entities/activity.js';
import { Contact } from '../entities/contact.js';
import { Task } from '../entities/task.js';
import type { ContactInput, ContactPatch } from '../schemas/contact.js';
import { assignFields, CrmReferences } from './references.js';

const notFound = () => AppError.notFound('Contact', 'CONTACT_NOT_FOUND');

@injectable()
export class Contacts {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(CrmReferences) private readonly refs: CrmReferences,
  ) {}

  async list(page: PageRequest, filter: { account_id?: string; owner_id?: string }): Promise<Page<Contact>> {
    return this.db.tenant(({ em }) =>
      paginate(em, Contact, { ...(filter.account_id ? { accountId: filter.account_id } : {}), ...(filter.owner_id ? { ownerId: filter.owner_id } : {}) }, page),
    );
  }

  async get(id: string): Promise<Contact> {
    return this.db.tenant((tx) => this.find(tx, id));
  }

  async create(input: ContactInput): Promise<Contact> {
    const ownerId = await this.refs.staffMember(input.owner_id, 'owner_id', true);
    return this.db.tenant(async (tx) => {
      await this.refs.account(tx, input.account_id);
      const contact = this.insert(tx, {
        accountId: input.account_id ?? null,
        ownerId: ownerId ?? null,
        leadId: null,
        email: input.email ?? null,
        firstName: input.first_name ?? null,
        lastName: input.last_name,
        phone: input.phone ?? null,
        jobTitle: input.job_title ?? null,
        tags: input.tags ?? [],
        metadata: input.metadata ?? {},
        lastActivityAt: null,
      });
      await tx.em.flush();
      return contact;
    });
  }

  insert(tx: Tx, fields: Omit<Contact, 'id' | 'tenantId' | 'createdAt' | 'updatedAt'>): Contact {
    const now = tx.now();
    return tx.em.create(Contact, { ...fields, id: randomUUID(), tenantId: tx.tenantId, createdAt: now, updatedAt: now });
  }

  async update(id: string, patch: ContactPatch): Promise<Contact> {
    const ownerId = await this.refs.staffMember(patch.owner_id, 'owner_id', false);
    return this.db.tenant(async (tx) => {
      const contact = await this.find(tx, id);
      await this.refs.account(tx, patch.account_id);
      assignFields(contact, { ...patch, owner_id: ownerId });
      contact.updatedAt = tx.now();
      await tx.em.flush();
      return contact;
    });
  }

  /** A contact goes with its activities and tasks; its deals stay, without a contact. */
  async remove(id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      await this.find(tx, id);
      await tx.em.nativeDelete(Activity, { entityKind: 'contact', entityId: id });
      await tx.em.nativeDelete(Task, { entityKind: 'contact', entityId: id });
      await tx.em.nativeDelete(Contact, { id });
    });
  }

  /** The contact's activities, those of the lead it was converted from included. */
  async activities(id: string, page: PageRequest, type?: ActivityType): Promise<Page<Activity>> {
    return this.db.tenant(async (tx) => {
      await this.find(tx, id);
      return paginate(tx.em, Activity, { entityKind: 'contact', entityId: id, ...(type ? { type } : {}) }, page);
    });
  }

  private async find(tx: Tx, id: string): Promise<Contact> {
    const contact = await tx.em.findOne(Contact, { id });
    if (!contact) throw notFound();
    return contact;
  }
}
