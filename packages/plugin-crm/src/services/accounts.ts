import { randomUUID } from 'node:crypto';
import { AppError, Database, paginate, type Page, type PageRequest, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Account } from '../entities/account.js';
import { Task } from '../entities/task.js';
import type { AccountInput, AccountPatch } from '../schemas/account.js';
import { assignFields, CrmReferences } from './references.js';

const notFound = () => AppError.notFound('Account', 'ACCOUNT_NOT_FOUND');

@injectable()
export class Accounts {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(CrmReferences) private readonly refs: CrmReferences,
  ) {}

  async list(page: PageRequest, filter: { owner_id?: string }): Promise<Page<Account>> {
    return this.db.tenant(({ em }) => paginate(em, Account, filter.owner_id ? { ownerId: filter.owner_id } : {}, page));
  }

  async get(id: string): Promise<Account> {
    return this.db.tenant((tx) => this.find(tx, id));
  }

  async create(input: AccountInput): Promise<Account> {
    const ownerId = await this.refs.staffMember(input.owner_id, 'owner_id', true);
    return this.db.tenant(async (tx) => {
      const account = this.insert(tx, {
        ownerId: ownerId ?? null,
        name: input.name,
        domain: input.domain ?? null,
        industry: input.industry ?? null,
        phone: input.phone ?? null,
        website: input.website ?? null,
        tags: input.tags ?? [],
        metadata: input.metadata ?? {},
      });
      await tx.em.flush();
      return account;
    });
  }

  insert(tx: Tx, fields: Omit<Account, 'id' | 'tenantId' | 'createdAt' | 'updatedAt'>): Account {
    const now = tx.now();
    return tx.em.create(Account, { ...fields, id: randomUUID(), tenantId: tx.tenantId, createdAt: now, updatedAt: now });
  }

  async update(id: string, patch: AccountPatch): Promise<Account> {
    const ownerId = await this.refs.staffMember(patch.owner_id, 'owner_id', false);
    return this.db.tenant(async (tx) => {
      const account = await this.find(tx, id);
      assignFields(account, { ...patch, owner_id: ownerId });
      account.updatedAt = tx.now();
      await tx.em.flush();
      return account;
    });
  }

  /** An account goes with its tasks; its contacts and deals stay, without an account. */
  async remove(id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      await this.find(tx, id);
      await tx.em.nativeDelete(Task, { entityKind: 'account', entityId: id });
      await tx.em.nativeDelete(Account, { id });
    });
  }

  private async find(tx: Tx, id: string): Promise<Account> {
    const account = await tx.em.findOne(Account, { id });
    if (!account) throw notFound();
    return account;
  }
}
