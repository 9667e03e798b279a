import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createQhatuClient, type QhatuClient } from '@qhatu/client';
import type { QhatuPlugin } from '@qhatu/core';
import { createTestApp, startMailbox, type Mailbox, type TestApp, type TestTenant } from '@qhatu/core/testing';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import project from '../../../starters/full-store/qhatu.config.js';
import { adminUiPlugin } from '../src/index.js';

export const PACKAGE = path.resolve(import.meta.dirname, '..');
export const ARTIFACTS = path.join(tmpdir(), 'qhatu-test-artifacts', 'admin');
export const PASSWORD = 'a long enough secret';
/** How long a poll waits for what the page or the store does in the background (CI shares two cores). */
export const POLL = { timeout: 15_000, interval: 200 };
export const ADDRESS = { first_name: 'Lucía', last_name: 'Huamán', address1: 'Av. Sol 123', city: 'Cusco', country_code: 'PE', zip: '08002' };

/** A port nobody listens on: the store's public address (signed upload URLs, e-mailed links) must be known before it starts. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The full store serving the built dashboard on a port of its own, a store in it, and Chromium. */
export interface Dashboard {
  t: TestApp;
  mailbox: Mailbox;
  /** The store the tests sign in to. */
  a: TestTenant;
  /** The store's API with its admin key. */
  api: QhatuClient;
  browser: Browser;
  origin: string;
  /** Signs `email` in on the sign-in page (opened first unless `open: false`). */
  signIn(page: Page, email: string, options?: { open?: boolean }): Promise<void>;
  /** A new page of `viewport`, with `email` signed in. */
  signedIn(email: string, viewport?: { width: number; height: number }): Promise<Page>;
  /** Adds a member with a password: by the role's name (`owner`) or a new role of `permissions`. */
  addMember(email: string, names: [string, string], role: string | { name: string; permissions: string[] }): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds the dashboard and starts the full store on PostgreSQL serving it, with a real SMTP server.
 * `build: 'package'` builds as packing does (type-checked, into the package's dist/ui); `'own'`
 * bundles into a folder of the test file's own, so files building at once do not overwrite each other.
 * `plugins` are loaded after the store's own; `env` adds settings (a gateway's base URL, for its double).
 */
export async function startDashboard(options: { build: 'package' | 'own'; store?: { name: string; currency: string }; plugins?: QhatuPlugin[]; env?: Record<string, string> }): Promise<Dashboard> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const mailbox = await startMailbox();
  const env = { ...options.env, QHATU_PUBLIC_URL: origin, SMTP_URL: mailbox.url };
  const built = options.build === 'own' ? mkdtempSync(path.join(tmpdir(), 'qhatu-admin-ui-')) : undefined;
  const run = promisify(execFile);
  const [, t] = await Promise.all([
    built ? run('pnpm', ['exec', 'vite', 'build', '--config', 'ui/vite.config.ts', '--outDir', built], { cwd: PACKAGE }) : run('pnpm', ['build:ui'], { cwd: PACKAGE }),
    createTestApp({ plugins: [...(built ? [...project.plugins.filter((p) => p.name !== 'admin'), adminUiPlugin({ root: built })] : project.plugins), ...(options.plugins ?? [])], workers: true, env }),
  ]);
  const a = await t.createTenant(options.store ?? { name: 'Tienda Inti', currency: 'PEN' });
  await t.app.http.listen({ port, host: '127.0.0.1' });
  const api = createQhatuClient({ baseUrl: origin, token: a.adminToken, tenantId: a.id });
  mkdirSync(ARTIFACTS, { recursive: true });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });

  const signIn: Dashboard['signIn'] = async (page, email, { open = true } = {}) => {
    if (open) await page.goto(`${origin}/admin/ui/`);
    await page.getByLabel('Store ID').fill(a.id);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  };
  return {
    t,
    mailbox,
    a,
    api,
    browser,
    origin,
    signIn,
    async signedIn(email, viewport = { width: 1280, height: 900 }) {
      const page = await browser.newPage({ viewport });
      page.setDefaultTimeout(15_000);
      await signIn(page, email);
      return page;
    },
    async addMember(email, [first_name, last_name], role) {
      const roles = (await api.GET('/api/v1/roles', { params: { query: { limit: 100 } } })).data;
      const role_id = typeof role === 'string' ? roles.find((r) => r.name === role)!.id : (await api.POST('/api/v1/roles', { body: role })).data.id;
      await api.POST('/api/v1/staff', { body: { email, first_name, last_name, role_id, password: PASSWORD } });
    },
    async close() {
      await browser.close();
      await t.close();
      await mailbox.close();
    },
  };
}

/** axe-core in the page: no serious or critical violation; then a screenshot kept as an artifact. */
export async function accessible(page: Page, name: string): Promise<void> {
  // Evaluated through the browser's protocol: the page's CSP (script-src 'self') would refuse an injected script tag.
  await page.evaluate(axe.source);
  const found = await page.evaluate<string[]>(`axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
  expect(found, name).toEqual([]);
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}
