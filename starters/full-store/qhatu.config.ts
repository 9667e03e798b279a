import { defineProject } from '@qhatu/core';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import discounts from '@qhatu/plugin-discounts';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import webhooks from '@qhatu/plugin-webhooks';

/** The full store: every plugin of the platform. */
export default defineProject({
  plugins: [media, catalog, customers, inventory, discounts, webhooks],
});
