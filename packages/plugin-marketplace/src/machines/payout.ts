import { defineMachine } from '@qhatu/core';
import { PAYOUT_STATUSES, type Payout, type PayoutStatus } from '../entities/payout.js';

/**
 * | from       | to         | action |
 * |------------|------------|--------|
 * | pending    | processing | process (closes it: new entries gather in a new pending payout) |
 * | pending    | paid       | pay (with `reference`) |
 * | processing | paid       | pay (with `reference`) |
 * | processing | failed     | fail (with `failure_reason`) |
 * | failed     | processing | process (tried again) |
 * | failed     | paid       | pay (paid another way) |
 * Anything else is 409 INVALID_STATE_TRANSITION; paid is final.
 */
export const payoutMachine = defineMachine<Payout, PayoutStatus>({
  name: 'payout',
  field: 'status',
  states: PAYOUT_STATUSES,
  transitions: {
    process: { from: ['pending', 'failed'], to: 'processing' },
    pay: { from: ['pending', 'processing', 'failed'], to: 'paid' },
    fail: { from: ['processing'], to: 'failed' },
  },
});

export const PAYOUT_ACTIONS: Record<Exclude<PayoutStatus, 'pending'>, string> = { processing: 'process', paid: 'pay', failed: 'fail' };
