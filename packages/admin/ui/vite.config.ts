import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig } from 'vite';

/** The dashboard, built into the package's dist/ui and served by the store at /admin/ui. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/admin/ui/',
  plugins: [react()],
  // The workspace's packages (the client) are bundled from their TypeScript sources.
  resolve: { conditions: ['qhatu-source', ...defaultClientConditions] },
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 400,
  },
});
