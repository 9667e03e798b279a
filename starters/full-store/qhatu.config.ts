import { defineProject } from '@qhatu/core';
import catalog from '@qhatu/plugin-catalog';

/** The full store: every plugin of the platform. */
export default defineProject({
  plugins: [catalog],
});
