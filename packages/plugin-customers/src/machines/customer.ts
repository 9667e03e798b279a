import { AccessToken, defineMachine } from '@qhatu/core';
import { CUSTOMER_STATUSES, type Customer, type CustomerStatus } from '../entities/customer.js';

/**
 * active ⇄ disabled. Disabling revokes the customer's tokens in the same transaction (the
 * service forgets them from the token cache after commit).
 */
export const customerMachine = defineMachine<Customer, CustomerStatus>({
  name: 'customer',
  field: 'status',
  states: CUSTOMER_STATUSES,
  transitions: {
    disable: {
      from: ['active'],
      to: 'disabled',
      effect: async ({ entity, tx }) => {
        await tx.em.nativeUpdate(AccessToken, { kind: 'customer', subjectId: entity.id, revokedAt: null }, { revokedAt: tx.now() });
      },
    },
    enable: { from: ['disabled'], to: 'active' },
  },
});
