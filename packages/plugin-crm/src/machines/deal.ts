import { defineMachine } from '@qhatu/core';
import { DEAL_STATUSES, type Deal, type DealStatus } from '../entities/deal.js';

/** Open deals move between stages and close as won or lost; a closed deal can be reopened. */
export const dealMachine = defineMachine<Deal, DealStatus>({
  name: 'deal',
  field: 'status',
  states: DEAL_STATUSES,
  transitions: {
    move: { from: ['open'], to: 'open' },
    win: { from: ['open'], to: 'won' },
    lose: { from: ['open'], to: 'lost' },
    reopen: { from: ['won', 'lost'], to: 'open' },
  },
});
