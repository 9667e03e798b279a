import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const ENTITY_KINDS = ['contact', 'account', 'deal', 'lead'] as const;
export type EntityKind = (typeof ENTITY_KINDS)[number];
export const TASK_STATUSES = ['open', 'completed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
/** Most urgent first: the order of `sort=priority`. */
export const TASK_PRIORITIES = ['urgent', 'high', 'medium', 'low'] as const;
export type TaskPriority = (typeof TASK_PRIORITIES)[number];

/** Something a staff member has to do about a contact, an account, a deal or a lead. */
export const Task = defineEntity({
  name: 'CrmTask',
  tableName: 'crm_task',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    entityKind: p.string().$type<EntityKind>(),
    entityId: p.uuid(),
    assignedTo: p.uuid().nullable(),
    title: p.string(),
    description: p.string().nullable(),
    status: p.string().$type<TaskStatus>(),
    priority: p.string().$type<TaskPriority>(),
    dueAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Task = InferEntity<typeof Task>;
