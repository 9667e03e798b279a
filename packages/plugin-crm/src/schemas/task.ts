import { Uuid } from '@qhatu/core';
import { z } from 'zod';
import { ENTITY_KINDS, TASK_PRIORITIES, TASK_STATUSES } from '../entities/task.js';
import { crmListQuery, NullableTimestamp, Out, StaffId, Text, When } from './common.js';

const taskFields = {
  assigned_to: StaffId.nullable().optional().meta({ description: 'A staff member; the caller when a staff member creates the task' }),
  description: Text(10_000).nullable().optional(),
  priority: z.enum(TASK_PRIORITIES).optional().meta({ description: '`medium` when not sent' }),
  due_at: When.nullable().optional(),
};

/** A task of a lead: `POST /leads/:id/tasks` names the entity in its path. */
export const LeadTaskInput = z.strictObject({ ...taskFields, title: Text() }).meta({ id: 'CrmLeadTaskCreate' });
export type LeadTaskInput = z.output<typeof LeadTaskInput>;

export const TaskInput = z
  .strictObject({ ...taskFields, entity_kind: z.enum(ENTITY_KINDS), entity_id: Uuid.meta({ description: 'A contact, account, deal or lead of the store' }), title: Text() })
  .meta({ id: 'CrmTaskCreate' });
export type TaskInput = z.output<typeof TaskInput>;

export const TaskPatch = z
  .strictObject({ ...taskFields, entity_kind: z.enum(ENTITY_KINDS).optional(), entity_id: Uuid.optional(), title: Text().optional() })
  .meta({ id: 'CrmTaskPatch' });
export type TaskPatch = z.output<typeof TaskPatch>;

export const TaskOut = z
  .object({
    ...Out,
    entity_kind: z.enum(ENTITY_KINDS),
    entity_id: Uuid,
    assigned_to: Uuid.nullable(),
    title: z.string(),
    description: z.string().nullable(),
    status: z.enum(TASK_STATUSES),
    priority: z.enum(TASK_PRIORITIES),
    due_at: NullableTimestamp,
    completed_at: NullableTimestamp,
  })
  .meta({ id: 'CrmTask' });

export const TaskListQuery = crmListQuery({
  sorts: ['due_at', 'created_at', 'priority'],
  defaultSort: '-created_at',
  filters: {
    status: z.enum(TASK_STATUSES),
    priority: z.enum(TASK_PRIORITIES),
    assigned_to: Uuid,
    entity_kind: z.enum(ENTITY_KINDS),
    entity_id: Uuid,
  },
});
