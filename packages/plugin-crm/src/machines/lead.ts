import { defineMachine } from '@qhatu/core';
import { LEAD_STATUSES, type Lead, type LeadStatus } from '../entities/lead.js';

/** Where a lead may still be worked on: qualified, disqualified or converted. */
const LIVE: LeadStatus[] = ['new', 'working', 'mql', 'sql'];

/**
 * The lead lifecycle (docs/decisions/0036-crm.md). Converting a converted lead is not a move: the
 * service answers with the ids it made the first time. Events are published by `Leads`.
 */
export const leadMachine = defineMachine<Lead, LeadStatus>({
  name: 'lead',
  field: 'status',
  states: LEAD_STATUSES,
  transitions: {
    // the first activity recorded on a new lead
    start_working: { from: ['new'], to: 'working' },
    // a disqualified lead may be qualified again (its reason is cleared)
    qualify_mql: { from: [...LIVE, 'disqualified'], to: 'mql' },
    qualify_sql: { from: [...LIVE, 'disqualified'], to: 'sql' },
    disqualify: { from: LIVE, to: 'disqualified' },
    convert: { from: LIVE, to: 'converted' },
  },
});
