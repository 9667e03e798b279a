import { defineMachine } from '@qhatu/core';
import { REFUND_STATUSES, type Refund, type RefundStatus } from '../entities/refund.js';

/**
 * A refund: recorded `pending` (its amount already counts against the payment), `processing`
 * once the provider took it, then `refunded` or `failed` (a failed refund frees its amount).
 */
export const refundMachine = defineMachine<Refund, RefundStatus>({
  name: 'refund',
  field: 'status',
  states: REFUND_STATUSES,
  transitions: {
    process: { from: ['pending'], to: 'processing' },
    succeed: { from: ['processing'], to: 'refunded' },
    fail: { from: ['pending', 'processing'], to: 'failed' },
  },
});
