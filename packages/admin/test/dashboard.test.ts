import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { createQhatuClient, type QhatuClient } from '@qhatu/client';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import project from '../../../starters/full-store/qhatu.config.js';
import { adminUiPlugin, BUILT_UI } from '../src/index.js';

const PACKAGE = path.resolve(import.meta.dirname, '..');
const ARTIFACTS = path.join(tmpdir(), 'qhatu-test-artifacts', 'admin');
const PASSWORD = 'a long enough secret';

let t: TestApp;
let a: TestTenant;
let api: QhatuClient;
let browser: Browser;
let origin: string;
let order: { id: string; number: number; total: number; currency: string };

beforeAll(async () => {
  // The dashboard as packing builds it (type-checked, then bundled by Vite), and the full store on PostgreSQL.
  const [, app] = await Promise.all([
    promisify(execFile)('pnpm', ['build:ui'], { cwd: PACKAGE }),
    createTestApp({ plugins: project.plugins, workers: true }),
  ]);
  t = app;
  a = await t.createTenant({ name: 'Tienda Inti', currency: 'PEN' });
  await t.app.http.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(t.app.http.server.address() as AddressInfo).port}`;
  api = createQhatuClient({ baseUrl: origin, token: a.adminToken, tenantId: a.id });

  // An owner, and a member whose role only reads and fulfils orders.
  const roles = (await api.GET('/api/v1/roles', { params: { query: { limit: 100 } } })).data;
  const owner = roles.find((r) => r.name === 'owner')!;
  await api.POST('/api/v1/staff', { body: { email: 'rosa@inti.pe', first_name: 'Rosa', last_name: 'Quispe', role_id: owner.id, password: PASSWORD } });
  const warehouseRole = (await api.POST('/api/v1/roles', { body: { name: 'Warehouse', permissions: ['orders.read', 'orders.fulfil'] } })).data;
  await api.POST('/api/v1/staff', { body: { email: 'juan@inti.pe', first_name: 'Juan', last_name: 'Mamani', role_id: warehouseRole.id, password: PASSWORD } });

  // A product in stock, and an order paid with an offline method (pending until a receipt is recorded).
  const product = (await api.POST('/api/v1/catalog/products', { body: { title: 'Chompa de alpaca', variants: [{ title: 'Gris', sku: 'CHOMPA-GRIS', price: 15900 }] } })).data;
  const warehouse = (await api.POST('/api/v1/inventory/warehouses', { body: { name: 'Cusco', code: 'CUSCO' } })).data;
  await api.POST('/api/v1/inventory/warehouses/{id}/stock/adjust', { params: { path: { id: warehouse.id } }, body: { variant_id: product.variants[0].id, delta: 3, reason: 'received' } });
  const placed = (await api.POST('/api/v1/orders', { body: { customer_email: 'lucia@example.pe', line_items: [{ variant_id: product.variants[0].id, quantity: 2 }], shipping_address: { first_name: 'Lucía', last_name: 'Huamán', address1: 'Av. Sol 123', city: 'Cusco', country_code: 'PE', zip: '08002' } } })).data;
  order = { id: placed.id, number: placed.number, total: placed.total, currency: placed.currency };
  await api.PUT('/api/v1/payments/gateways/{id}', { params: { path: { id: 'offline' } }, body: { enabled: true } });
  const method = (await api.POST('/api/v1/payments/offline/methods', { body: { name: 'Yape', kind: 'wallet', instructions: 'Yape al 999 888 777', currencies: ['PEN'], enabled: true, position: 0 } })).data;
  await api.POST('/api/v1/payments', { body: { order_id: order.id, gateway: 'offline', amount: order.total, currency: order.currency, method_id: method.id } as never });

  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** axe-core in the page: no serious or critical violation. */
async function accessible(page: Page, name: string): Promise<void> {
  // Evaluated through the browser's protocol: the page's CSP (script-src 'self') would refuse an injected script tag.
  await page.evaluate(axe.source);
  const found = await page.evaluate<string[]>(`axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
  expect(found, name).toEqual([]);
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(`${origin}/admin/ui/`);
  await page.getByLabel('Store ID').fill(a.id);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

describe('the admin dashboard at /admin/ui', () => {
  it('is served with its cache headers and the plugins’ manifest; without a build, a 503 that says to build it', async () => {
    const shell = await t.request({ method: 'GET', url: '/admin/ui' });
    expect(shell.statusCode).toBe(200);
    expect(shell.headers['content-type']).toMatch(/^text\/html/);
    expect(shell.headers['cache-control']).toBe('no-cache');
    expect(shell.headers['content-security-policy']).toContain("script-src 'self'");
    // Any address of the app is the app (it routes in the browser).
    expect((await t.request({ method: 'GET', url: `/admin/ui/orders/${order.id}` })).body).toBe(shell.body);
    const asset = readdirSync(path.join(BUILT_UI, 'assets')).find((f) => f.endsWith('.js'))!;
    const js = await t.request({ method: 'GET', url: `/admin/ui/assets/${asset}` });
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    expect((await t.request({ method: 'GET', url: '/admin/ui/assets/missing.js' })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: '/admin/ui/assets/..%2F..%2Fpackage.json' })).statusCode).toBe(404);
    const manifest = (await t.request({ method: 'GET', url: '/admin/ui/manifest.json' })).json();
    expect(manifest.plugins).toContain('orders');
    const reviews = manifest.extensions.find((e: { plugin: string }) => e.plugin === 'reviews');
    expect(reviews.pages[0]).toMatchObject({ path: 'moderation', permission: 'reviews.read', nav: true });
    expect(reviews.widgets[0].zone).toBe('product.detail');
    expect(JSON.stringify((await t.request({ method: 'GET', url: '/openapi.json' })).json().paths)).not.toContain('/admin/ui');

    const bare = await createTestApp({ plugins: [adminUiPlugin({ root: mkdtempSync(path.join(tmpdir(), 'qhatu-admin-unbuilt-')) })] });
    try {
      for (const url of ['/admin/ui', '/admin/ui/orders', '/admin/ui/assets/index.js']) {
        const res = await bare.request({ method: 'GET', url });
        expect(res.statusCode, url).toBe(503);
        expect(res.json().error.code).toBe('SERVICE_UNAVAILABLE');
        expect(res.json().error.message).toContain('pnpm --filter @qhatu/admin build');
      }
    } finally {
      await bare.close();
    }
  });

  it('loads at most 300 KB of JavaScript gzipped for its shell; each area is a chunk of its own', () => {
    const html = readFileSync(path.join(BUILT_UI, 'index.html'), 'utf8');
    const shell = [...html.matchAll(/(?:src|href)="\/admin\/ui\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]);
    expect(shell.length).toBeGreaterThan(0);
    const gzipped = shell.reduce((sum, file) => sum + gzipSync(readFileSync(path.join(BUILT_UI, file))).length, 0);
    expect(gzipped).toBeLessThanOrEqual(300 * 1024);
    const chunks = readdirSync(path.join(BUILT_UI, 'assets'));
    for (const area of ['home', 'orders', 'products', 'inventory', 'customers', 'staff']) {
      const chunk = chunks.find((f) => f.startsWith(`${area}-`) && f.endsWith('.js'));
      expect(chunk, area).toBeDefined();
      expect(shell).not.toContain(`assets/${chunk}`);
    }
  });

  it('signs an owner in, keeps no token in localStorage, and shows the home, a product created with a variant, and an order paid and fulfilled', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(15_000);
    await page.goto(`${origin}/admin/ui/`);
    await accessible(page, 'sign-in');
    await signIn(page, 'rosa@inti.pe');
    await page.getByRole('heading', { name: 'Sales this month' }).waitFor();
    await page.getByRole('heading', { name: 'Orders to fulfil' }).waitFor();
    await page.getByText('No order is waiting to be fulfilled.').waitFor();
    const storage = await page.evaluate<{ local: string; session: string }>('({ local: JSON.stringify({ ...localStorage }), session: JSON.stringify({ ...sessionStorage }) })');
    const token = JSON.parse(JSON.parse(storage.session)['qhatu.admin.session']).token as string;
    expect(token).toMatch(/^qh/);
    expect(storage.local).not.toContain(token);
    expect(storage.local).toContain(a.id); // the store is remembered, not the token
    const nav = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
    expect(nav).toEqual(['Home', 'Orders', 'Products', 'Inventory', 'Customers', 'Staff and roles', 'Reviews']);
    await accessible(page, 'home');

    // A product with two variants, then published.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Products', exact: true }).click();
    await page.getByRole('link', { name: 'New product' }).click();
    await page.getByLabel('Title').fill('Poncho andino');
    const first = page.getByRole('group', { name: 'Variant 1' });
    await first.getByLabel('Variant').fill('Rojo');
    await first.getByLabel('SKU').fill('PONCHO-ROJO');
    await first.getByLabel('Price (cents)').fill('24900');
    await page.getByRole('button', { name: 'Add variant' }).click();
    const second = page.getByRole('group', { name: 'Variant 2' });
    await second.getByLabel('Variant').fill('Azul');
    await second.getByLabel('Price (cents)').fill('25900');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: /Poncho andino/ }).waitFor();
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByRole('button', { name: 'Move to draft' }).waitFor();
    const listed = (await api.GET('/api/v1/catalog/products', { params: { query: { q: 'Poncho' } } })).data;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ title: 'Poncho andino', status: 'active' });
    expect(listed[0].variants.map((v) => [v.title, v.sku, v.price])).toEqual([['Rojo', 'PONCHO-ROJO', 24900], ['Azul', null, 25900]]);
    // The reviews plugin's widget, in the product page's zone.
    await page.locator('[data-zone="product.detail"][data-plugin="reviews"]').getByRole('heading', { name: 'Reviews of this product' }).waitFor();
    await accessible(page, 'product');

    // The order made through the API: found by its number, paid by recording the receipt, fulfilled.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Orders', exact: true }).click();
    await page.getByRole('searchbox', { name: 'Search' }).fill(String(order.number));
    await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
    await page.getByRole('link', { name: `#${order.number}` }).click();
    await page.getByRole('heading', { name: /pending/ }).waitFor();
    await accessible(page, 'order-pending');
    await page.getByRole('button', { name: 'Record a receipt' }).click();
    await page.getByLabel('Reference').fill('Yape op. 04518822');
    await page.getByRole('form', { name: 'Record a receipt' }).getByRole('button', { name: 'Record a receipt' }).click();
    await page.getByRole('heading', { name: /paid/ }).waitFor();
    await page.getByRole('button', { name: 'Fulfil' }).click();
    await page.getByLabel('Carrier').fill('Olva');
    await page.getByLabel('Tracking number').fill('OLVA-123');
    await page.getByRole('form', { name: 'Fulfil' }).getByRole('button', { name: 'Fulfil' }).click();
    await page.getByText('OLVA-123').waitFor();
    const fulfilled = (await api.GET('/api/v1/orders/{id}', { params: { path: { id: order.id } } })).data;
    expect(fulfilled.amount_paid).toBe(order.total);
    expect(fulfilled.fulfillments).toHaveLength(1);
    expect(fulfilled.fulfillments[0]).toMatchObject({ carrier: 'Olva', tracking_number: 'OLVA-123' });
    expect(fulfilled.line_items[0].fulfilled_quantity).toBe(2);
    await accessible(page, 'order-fulfilled');

    // Orders with a status filter, in Spanish.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Orders', exact: true }).click();
    await page.getByLabel('Language').first().selectOption('es');
    await page.getByRole('heading', { name: 'Pedidos' }).waitFor();
    await page.getByLabel('Estado').selectOption('cancelled');
    await page.getByText('Aún no hay nada aquí.').waitFor();
    await accessible(page, 'orders-es');
    await page.getByLabel('Idioma').first().selectOption('en');

    // The staff page: roles as permission check-boxes.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Staff and roles', exact: true }).click();
    const warehouse = page.getByRole('form', { name: 'Warehouse' });
    await expect.poll(() => warehouse.getByRole('checkbox', { name: /orders\.fulfil/ }).isChecked()).toBe(true);
    expect(await warehouse.getByRole('checkbox', { name: /catalog\.write/ }).isChecked()).toBe(false);
    await accessible(page, 'staff');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to your store' }).waitFor();
    expect(await page.evaluate<number>('sessionStorage.length')).toBe(0);
    await page.close();
  });

  it('narrows the dashboard of a member whose role only reads and fulfils orders, on a phone too', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    page.setDefaultTimeout(15_000);
    await signIn(page, 'juan@inti.pe');
    const menu = page.getByRole('button', { name: 'Menu' });
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    const nav = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
    expect(nav).toEqual(['Home', 'Orders']);
    await page.getByRole('heading', { name: 'Orders to fulfil' }).waitFor();
    await expect.poll(() => page.getByRole('heading', { name: 'Low stock' }).count()).toBe(0);
    await accessible(page, 'home-narrow-phone');
    await page.goto(`${origin}/admin/ui/staff`);
    await page.getByRole('alert').getByText('Your role does not allow this page.').waitFor();
    await page.goto(`${origin}/admin/ui/x/reviews/moderation`);
    await page.getByRole('alert').getByText('Your role does not allow this page.').waitFor();
    await page.close();
  });
});
