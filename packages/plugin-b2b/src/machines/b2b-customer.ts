import { defineMachine } from '@qhatu/core';
import { B2B_CUSTOMER_STATUSES, type B2BCustomer, type B2BCustomerStatus } from '../entities/b2b-customer.js';

/**
 * active ↔ on_hold (credit hold: list prices stay, no orders on account), active or on_hold →
 * disabled (no list prices, no quotes), disabled → active.
 */
export const b2bCustomerMachine = defineMachine<B2BCustomer, B2BCustomerStatus>({
  name: 'B2B customer',
  field: 'status',
  states: B2B_CUSTOMER_STATUSES,
  transitions: {
    hold: { from: ['active'], to: 'on_hold' },
    release: { from: ['on_hold'], to: 'active' },
    disable: { from: ['active', 'on_hold'], to: 'disabled' },
    enable: { from: ['disabled'], to: 'active' },
  },
});

/** The action that moves a customer to `to` (PATCH sends the target status). */
export function actionTo(from: B2BCustomerStatus, to: B2BCustomerStatus): string {
  if (to === 'on_hold') return 'hold';
  if (to === 'disabled') return 'disable';
  return from === 'on_hold' ? 'release' : 'enable';
}
