import { defineMachine } from '@qhatu/core';
import { TASK_STATUSES, type Task, type TaskStatus } from '../entities/task.js';

/** A task is done or dropped once, from `open` only. */
export const taskMachine = defineMachine<Task, TaskStatus>({
  name: 'task',
  field: 'status',
  states: TASK_STATUSES,
  transitions: {
    complete: { from: ['open'], to: 'completed' },
    cancel: { from: ['open'], to: 'cancelled' },
  },
});
