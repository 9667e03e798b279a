import { LockMode } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { AppError, Database, type Page, type PageRequest, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Task, type EntityKind } from '../entities/task.js';
import { taskMachine } from '../machines/task.js';
import type { LeadTaskInput, TaskInput, TaskPatch } from '../schemas/task.js';
import { taskEvent } from './events.js';
import { readTaskPage, type TaskFilter } from './reads.js';
import { assignFields, CrmReferences } from './references.js';

const notFound = () => AppError.notFound('Task', 'TASK_NOT_FOUND');

@injectable()
export class Tasks {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(CrmReferences) private readonly refs: CrmReferences,
  ) {}

  list(page: PageRequest, filter: TaskFilter): Promise<Page<Task>> {
    return this.db.read((sql) => readTaskPage(sql, page, filter));
  }

  async get(id: string): Promise<Task> {
    return this.db.tenant(async (tx) => (await tx.em.findOne(Task, { id })) ?? Promise.reject(notFound()));
  }

  async create(input: TaskInput): Promise<Task> {
    const assignedTo = await this.refs.staffMember(input.assigned_to, 'assigned_to', true);
    return this.db.tenant(async (tx) => {
      await this.refs.entity(tx, input.entity_kind, input.entity_id);
      return this.insert(tx, input.entity_kind, input.entity_id, { ...input, assigned_to: assignedTo });
    });
  }

  /** A task of an entity already checked (a lead's, from `POST /leads/:id/tasks`), in the caller's transaction. */
  insert(tx: Tx, kind: EntityKind, entityId: string, input: LeadTaskInput): Task {
    const now = tx.now();
    const task = tx.em.create(Task, {
      id: randomUUID(),
      tenantId: tx.tenantId,
      entityKind: kind,
      entityId,
      assignedTo: input.assigned_to ?? null,
      title: input.title,
      description: input.description ?? null,
      status: 'open',
      priority: input.priority ?? 'medium',
      dueAt: input.due_at ? new Date(input.due_at) : null,
      completedAt: null,
      createdAt: now,
      updatedAt: now,
    });
    tx.publish('crm.task.created', taskEvent(task));
    return task;
  }

  async update(id: string, patch: TaskPatch): Promise<Task> {
    const assignedTo = await this.refs.staffMember(patch.assigned_to, 'assigned_to', false);
    return this.db.tenant(async (tx) => {
      const task = await tx.em.findOne(Task, { id });
      if (!task) throw notFound();
      const kind = patch.entity_kind ?? task.entityKind;
      const entityId = patch.entity_id ?? task.entityId;
      if (kind !== task.entityKind || entityId !== task.entityId) await this.refs.entity(tx, kind, entityId, patch.entity_id ? 'entity_id' : 'entity_kind');
      assignFields(task, { ...patch, assigned_to: assignedTo }, ['due_at']);
      task.updatedAt = tx.now();
      await tx.em.flush();
      return task;
    });
  }

  complete(id: string): Promise<Task> {
    return this.move(id, 'complete', 'crm.task.completed');
  }

  cancel(id: string): Promise<Task> {
    return this.move(id, 'cancel', 'crm.task.cancelled');
  }

  async remove(id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      if (!(await tx.em.nativeDelete(Task, { id }))) throw notFound();
    });
  }

  private async move(id: string, action: 'complete' | 'cancel', event: string): Promise<Task> {
    return this.db.tenant(async (tx) => {
      const task = await tx.em.findOne(Task, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!task) throw notFound();
      await taskMachine.apply(tx, task, action);
      const now = tx.now();
      if (action === 'complete') task.completedAt = now;
      task.updatedAt = now;
      await tx.em.flush();
      tx.publish(event, taskEvent(task));
      return task;
    });
  }
}
