// A store's API in a process of its own (`spawnStoreProcess`), so that a test can kill it with SIGKILL between two steps.
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { createApp, loadConfig, type QhatuPlugin } from '@qhatu/core';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import payments from './index.js';

const files = JSON.parse(process.env.QHATU_TEST_PLUGIN_FILES ?? '[]') as string[];
const gateways = await Promise.all(files.map(async (file) => ((await import(pathToFileURL(file).href)) as { default: QhatuPlugin }).default));
// Loaded while the test prepares its database; the settings come on the first line of stdin.
process.stdout.write('loaded\n');
const env = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: process.stdin }).once('line', resolve))) as Record<string, string>;
const app = await createApp({
  plugins: [media, catalog, customers, inventory, orders, payments, ...gateways],
  config: loadConfig({ ...process.env, ...env }),
  workers: env.QHATU_TEST_WORKERS === 'true',
});
process.stdout.write(`listening ${await app.listen()}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
