import type { Migration } from '@qhatu/core';

/**
 * The worth of goods a company sent back is waived on the order itself (`orders_order.amount_waived`),
 * so the order's `amount_due`, what a payment of it may take and the company's open balance agree.
 * Orders on account credited before carry their credits over.
 */
export const accountWaiversMigration: Migration = {
  id: '0003_account_waivers',
  up: [
    `UPDATE orders_order o SET amount_waived = least(o.total, o.amount_waived + a.credited)
       FROM b2b_account_order a
      WHERE a.tenant_id = o.tenant_id AND a.order_id = o.id AND a.credited > 0`,
  ],
};
