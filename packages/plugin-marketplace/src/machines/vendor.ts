import { defineMachine } from '@qhatu/core';
import { VENDOR_STATUSES, type Vendor, type VendorStatus } from '../entities/vendor.js';

/**
 * | from      | to        | action   |
 * |-----------|-----------|----------|
 * | pending   | active    | activate (approved) |
 * | pending   | suspended | suspend (turned down) |
 * | active    | suspended | suspend |
 * | suspended | active    | activate (reinstated) |
 * Anything else, a move to the current status included, is 409 INVALID_STATE_TRANSITION.
 */
export const vendorMachine = defineMachine<Vendor, VendorStatus>({
  name: 'vendor',
  field: 'status',
  states: VENDOR_STATUSES,
  transitions: {
    activate: { from: ['pending', 'suspended'], to: 'active' },
    suspend: { from: ['pending', 'active'], to: 'suspended' },
  },
});

/** The action that moves a vendor to `to` (PATCH sends the target status); `pending` has none. */
export function vendorActionTo(to: VendorStatus): string | null {
  if (to === 'active') return 'activate';
  if (to === 'suspended') return 'suspend';
  return null;
}
