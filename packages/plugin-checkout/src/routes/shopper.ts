import { TenantContext } from '@qhatu/core';
import type { Shopper } from '../services/carts.js';

/** The checkout API's own codes for bad input (the specification's INVALID_REQUEST and INVALID_ID). */
export const CHECKOUT_ERRORS = { body: 'INVALID_REQUEST', params: 'INVALID_ID', querystring: 'INVALID_REQUEST' } as const;

/** A customer token acts for its own customer; store keys act for the store. */
export function shopper(): Shopper {
  const principal = TenantContext.principal();
  return { customerId: principal?.kind === 'customer' ? principal.subjectId : null };
}
