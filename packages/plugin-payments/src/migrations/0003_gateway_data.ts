import type { Migration } from '@qhatu/core';

/** What a gateway keeps while a payment waits for the browser (never shown). */
export const gatewayDataMigration: Migration = {
  id: '0003_payment_gateway_data',
  up: [`ALTER TABLE payments_payment ADD COLUMN gateway_data jsonb`],
};
