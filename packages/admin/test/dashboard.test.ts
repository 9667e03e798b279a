import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { QhatuClient } from '@qhatu/client';
import { createTestApp, type Mailbox, type TestApp, type TestTenant } from '@qhatu/core/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminManifest, adminUiPlugin, BUILT_UI } from '../src/index.js';
import { ADDRESS, accessible, PASSWORD, POLL, startDashboard, type Dashboard } from './helpers.js';

// A 1×1 PNG: a real image, so the media plugin's image variants are made from it.
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

let d: Dashboard;
let t: TestApp;
let mailbox: Mailbox;
let a: TestTenant;
let api: QhatuClient;
let browser: Browser;
let origin: string;
// The dashboard's areas, then the installed plugins' pages in the order of the store's plugins.
const OWNER_NAV = [
  'Home', 'Orders', 'Draft orders', 'Returns', 'Products', 'Inventory', 'Customers', 'Discounts', 'Wholesale', 'Pipeline', 'Blog', 'Theme editor', 'Translations', 'Staff and roles', 'Settings',
  'Theme store', 'Themes', 'Reviews', 'Leads', 'Tasks', 'Wholesale companies', 'Vendors', 'Payouts',
];
let order: { id: string; number: number; total: number; currency: string };

beforeAll(async () => {
  // The dashboard as packing builds it (type-checked, then bundled by Vite), and the full store on PostgreSQL.
  d = await startDashboard({ build: 'package' });
  ({ t, mailbox, a, api, browser, origin } = d);

  // An owner, and a member whose role only reads and fulfils orders.
  await d.addMember('rosa@inti.pe', ['Rosa', 'Quispe'], 'owner');
  await d.addMember('juan@inti.pe', ['Juan', 'Mamani'], { name: 'Warehouse', permissions: ['orders.read', 'orders.fulfil'] });

  // A product in stock, and an order paid with an offline method (pending until a receipt is recorded).
  const product = (await api.POST('/api/v1/catalog/products', { body: { title: 'Chompa de alpaca', variants: [{ title: 'Gris', sku: 'CHOMPA-GRIS', price: 15900 }] } })).data;
  const warehouse = (await api.POST('/api/v1/inventory/warehouses', { body: { name: 'Cusco', code: 'CUSCO' } })).data;
  await api.POST('/api/v1/inventory/warehouses/{id}/stock/adjust', { params: { path: { id: warehouse.id } }, body: { variant_id: product.variants[0].id, delta: 3, reason: 'received' } });
  const placed = (await api.POST('/api/v1/orders', { body: { customer_email: 'lucia@example.pe', line_items: [{ variant_id: product.variants[0].id, quantity: 2 }], shipping_address: ADDRESS } })).data;
  order = { id: placed.id, number: placed.number, total: placed.total, currency: placed.currency };
  await api.PUT('/api/v1/payments/gateways/{id}', { params: { path: { id: 'offline' } }, body: { enabled: true } });
  const method = (await api.POST('/api/v1/payments/offline/methods', { body: { name: 'Yape', kind: 'wallet', instructions: 'Yape al 999 888 777', currencies: ['PEN'], enabled: true, position: 0 } })).data;
  await api.POST('/api/v1/payments', { body: { order_id: order.id, gateway: 'offline', amount: order.total, currency: order.currency, method_id: method.id } as never });
}, 240_000);

afterAll(async () => {
  await d?.close();
});

const signIn = (page: Page, email: string, options: { open?: boolean } = {}) => d.signIn(page, email, options);

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
    const zones = Object.fromEntries(manifest.extensions.map((e: { plugin: string; widgets: Array<{ zone: string }> }) => [e.plugin, e.widgets.map((w) => w.zone)]));
    expect(zones).toMatchObject({ crm: ['home'], blog: ['home'], reviews: ['product.detail'], b2b: [], marketplace: [] });
    // Draft orders, order edits, returns and store credit are areas of the dashboard, not declared views.
    for (const plugin of ['draft-orders', 'order-edits', 'returns', 'store-credit']) expect(zones).not.toHaveProperty([plugin]);
    // Each plugin's pages are its own declaration: none, nothing; a faulty one stops the start.
    expect(adminManifest([{ name: 'b2b', admin: { pages: [] } } as never]).extensions).toEqual([{ plugin: 'b2b', pages: [], widgets: [] }]);
    expect(adminManifest([{ name: 'marketplace' } as never]).extensions).toEqual([]);
    expect(manifest.extensions.find((e: { plugin: string }) => e.plugin === 'marketplace').pages.map((p: { path: string }) => p.path)).toEqual(['vendors', 'payouts']);
    expect(() => adminManifest([{ name: 'crm', admin: { pages: [{ path: 'x', title: { en: 'X' }, permission: 'CRM', view: { type: 'list', source: '/api/v1/crm/deals', columns: [] } }] } } as never])).toThrow(
      /Plugin "crm" declares an admin extension that is not valid: admin\.pages\.0\.permission/,
    );
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
    for (const area of ['home', 'orders', 'products', 'inventory', 'customers', 'staff', 'discounts', 'settings', 'crm', 'blog', 'drafts', 'returns', 'order-edits', 'store-credit', 'wholesale', 'theme', 'translations']) {
      const chunk = chunks.find((f) => f.startsWith(`${area}-`) && f.endsWith('.js'));
      expect(chunk, area).toBeDefined();
      expect(shell).not.toContain(`assets/${chunk}`);
    }
  });

  it('signs an owner in, keeps no token in localStorage, and shows the home; creates a product with two variants and an uploaded image; receives its stock', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(15_000);
    await page.goto(`${origin}/admin/ui/`);
    await accessible(page, 'sign-in');
    await signIn(page, 'rosa@inti.pe', { open: false });
    await page.getByRole('heading', { name: 'Sales this month' }).waitFor();
    await page.getByRole('heading', { name: 'Orders to fulfil' }).waitFor();
    await page.getByText('No order is waiting to be fulfilled.').waitFor();
    const storage = await page.evaluate<{ local: string; session: string }>('({ local: JSON.stringify({ ...localStorage }), session: JSON.stringify({ ...sessionStorage }) })');
    const token = JSON.parse(JSON.parse(storage.session)['qhatu.admin.session']).token as string;
    expect(token).toMatch(/^qh/);
    expect(storage.local).not.toContain(token);
    expect(storage.local).toContain(a.id); // the store is remembered, not the token
    const nav = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
    expect(nav).toEqual(OWNER_NAV);
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

    // An image through the signed upload: announced, its bytes PUT with progress, confirmed, then on the product.
    const upload = page.getByRole('form', { name: 'Add an image' });
    await upload.getByLabel('Image file').setInputFiles({ name: 'poncho-rojo.png', mimeType: 'image/png', buffer: PIXEL });
    await upload.getByLabel('Alt text').fill('Poncho rojo doblado');
    await upload.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('img', { name: 'Poncho rojo doblado' }).waitFor();
    expect(await upload.getByRole('progressbar').getAttribute('value')).toBe('100');
    await upload.getByText('Uploaded', { exact: true }).waitFor();
    const withImage = (await api.GET('/api/v1/catalog/products/{id}', { params: { path: { id: listed[0].id } } })).data;
    expect(withImage.images).toHaveLength(1);
    expect(withImage.images[0].alt_text).toBe('Poncho rojo doblado');
    const media = (await api.GET('/api/v1/media/{id}', { params: { path: { id: withImage.images[0].media_id! } } })).data;
    expect(media).toMatchObject({ status: 'uploaded', content_type: 'image/png', size_bytes: PIXEL.length, original_name: 'poncho-rojo.png' });
    expect(await page.getByRole('img', { name: 'Poncho rojo doblado' }).evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(1);
    await accessible(page, 'product');

    // Stock received into the warehouse for the new variant, found by the product's title.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Inventory', exact: true }).click();
    await page.getByRole('searchbox', { name: 'Find a product' }).fill('Poncho');
    await page.getByRole('searchbox', { name: 'Find a product' }).press('Enter');
    const receive = page.getByRole('form', { name: 'Receive stock' });
    await expect.poll(() => receive.locator('select[name="variant_id"] option').allTextContents(), POLL).toEqual([expect.stringMatching(/^Poncho andino · Rojo \(PONCHO-ROJO\) · .*249\.00/), expect.stringMatching(/^Poncho andino · Azul · .*259\.00/)]);
    await receive.getByLabel('Variant').selectOption(listed[0].variants[0].id);
    await receive.getByLabel('Units received').fill('12');
    await receive.getByLabel('Note').fill('Guía 001-2231');
    await receive.getByRole('button', { name: 'Receive stock' }).click();
    await page.getByRole('row', { name: /PONCHO-ROJO 12 0 12/ }).waitFor();
    await page.getByRole('region', { name: 'Stock changes' }).getByRole('cell', { name: 'Guía 001-2231' }).waitFor();
    const [cusco] = (await api.GET('/api/v1/inventory/warehouses', {})).data;
    const levels = (await api.GET('/api/v1/inventory/warehouses/{id}/stock', { params: { path: { id: cusco.id }, query: { 'filter[variant_id]': listed[0].variants[0].id } } })).data;
    expect(levels).toMatchObject([{ sku: 'PONCHO-ROJO', on_hand: 12, available: 12 }]);
    await accessible(page, 'inventory');
    await page.close();
  }, 120_000);

  it('takes an order made through the API from its offline receipt to fulfilled and partly refunded, lists orders in Spanish and shows roles as check-boxes', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(15_000);
    await signIn(page, 'rosa@inti.pe');

    // The order made through the API: found by its number, paid by recording the receipt, fulfilled.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Orders', exact: true }).click();
    await page.getByRole('searchbox', { name: 'Search' }).fill(String(order.number));
    await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
    await page.getByRole('link', { name: `#${order.number}` }).click();
    await page.getByRole('heading', { name: /pending/ }).waitFor();
    // The order's edits, a chunk of their own on the order's page.
    await page.getByRole('region', { name: 'Edits and versions' }).getByRole('button', { name: 'Edit this order' }).waitFor();
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

    // Part of the money goes back: a refund of the paid payment, shown under it.
    await page.getByRole('button', { name: 'Refund' }).click();
    await page.getByLabel('Amount (0 = everything left)').fill('5000');
    await page.getByRole('form', { name: 'Refund' }).getByRole('button', { name: 'Refund' }).click();
    await page.getByRole('list', { name: 'Refunds' }).getByText(/50\.00/).waitFor();
    await expect.poll(async () => (await api.GET('/api/v1/orders/{id}', { params: { path: { id: order.id } } })).data.amount_refunded, POLL).toBe(5000);
    const [payment] = (await api.GET('/api/v1/payments', { params: { query: { 'filter[order_id]': order.id } } })).data;
    expect(payment).toMatchObject({ status: 'partially_refunded', refunds: [{ amount: 5000 }] });
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
  }, 120_000);

  it('keeps discounts, settings and the plugins’ areas: coupons, volume tiers, taxes, shipping rates, gateways, webhooks, the pipeline board, the blog editor, themes, wholesale and the marketplace', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(15_000);
    const deal = (await api.POST('/api/v1/crm/deals', { body: { title: 'Chompas para Hotel Sol', amount: 480000 } })).data;
    await api.POST('/api/v1/marketplace/vendors', { body: { name: 'Tejidos Q’ero', email: 'qero@example.pe', country_code: 'PE', default_commission_pct: 12.5 } });
    await signIn(page, 'rosa@inti.pe');
    const nav = page.getByRole('navigation', { name: 'Main' });

    // The home: widgets of two plugins in its zone.
    await page.locator('[data-zone="home"][data-plugin="crm"]').getByRole('cell', { name: 'Chompas para Hotel Sol' }).waitFor();
    await page.locator('[data-zone="home"][data-plugin="blog"]').getByText('Nothing here yet.').waitFor();

    // Discounts: a coupon and a volume tier.
    await nav.getByRole('link', { name: 'Discounts', exact: true }).click();
    const coupon = page.getByRole('form', { name: 'New coupon' });
    await coupon.getByLabel('Code').fill('inti10');
    await coupon.getByLabel('Percent off').fill('12.5');
    await coupon.getByLabel('Uses in all').fill('100');
    await coupon.getByRole('button', { name: 'Create coupon' }).click();
    await page.getByRole('row', { name: /INTI10 12\.5 %/ }).waitFor();
    const tier = page.getByRole('form', { name: 'Add tier' });
    await tier.getByRole('searchbox', { name: 'Find a product (Enter)' }).fill('Chompa');
    await tier.getByRole('searchbox', { name: 'Find a product (Enter)' }).press('Enter');
    // (A select inside its label: its name grows by the chosen option, so it is found by its field name.)
    await expect.poll(() => tier.locator('select[name="product_id"] option').allTextContents(), POLL).toEqual(['Chompa de alpaca']);
    await tier.getByLabel('From quantity').fill('3');
    await tier.getByLabel('Percent off').fill('5');
    await tier.getByRole('button', { name: 'Add tier' }).click();
    await page.getByRole('row', { name: /Chompa de alpaca 3 5 %/ }).waitFor();
    expect((await api.GET('/api/v1/discounts/coupons', { params: { query: { q: 'INTI10' } } })).data).toMatchObject([{ code: 'INTI10', type: 'percentage', value: 1250, max_uses: 100 }]);
    expect((await api.GET('/api/v1/discounts/volume', {})).data).toMatchObject([{ min_quantity: 3, value: 500 }]);
    await accessible(page, 'discounts');

    // Settings: a tax region, a shipping rate, a webhook whose secret is shown once; the gateways.
    await nav.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('heading', { name: 'Customer accounts' }).waitFor();
    await accessible(page, 'settings-store');
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Taxes' }).click();
    const region = page.getByRole('form', { name: 'New tax region' });
    await region.getByLabel('Country').fill('pe');
    await region.getByLabel('Standard rate (%)').fill('18');
    await region.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('row', { name: /PE .*standard 18 %/ }).waitFor();
    await accessible(page, 'settings-taxes');
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Shipping rates' }).click();
    const rate = page.getByRole('form', { name: 'New shipping rate' });
    for (const [label, value] of [['Carrier', 'olva'], ['Service', 'Olva Express'], ['Service code', 'express'], ['Price (cents)', '1500'], ['Days', '2'], ['Up to (grams)', '5000'], ['From (country)', 'PE'], ['To (country)', 'PE']]) await rate.getByLabel(label, { exact: true }).fill(value);
    await rate.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('row', { name: /olva · Olva Express PE → PE 5000 2/ }).waitFor();
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Payment gateways' }).click();
    await page.getByRole('form', { name: 'Stripe' }).waitFor();
    await accessible(page, 'settings-payments');
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Webhooks' }).click();
    const hook = page.getByRole('form', { name: 'New webhook' });
    await hook.getByLabel('Address').fill('https://erp.inti.pe/hooks/qhatu');
    await hook.getByLabel('Events').fill('orders.order.created, orders.order.paid');
    await hook.getByRole('button', { name: 'Add' }).click();
    await page.getByText('The signing secret, shown only now:').waitFor();
    await page.getByRole('cell', { name: 'https://erp.inti.pe/hooks/qhatu' }).waitFor();
    expect((await api.GET('/api/v1/webhooks', {})).data).toMatchObject([{ url: 'https://erp.inti.pe/hooks/qhatu', events: ['orders.order.created', 'orders.order.paid'], enabled: true }]);
    expect((await api.GET('/shipping/rates', {})).data).toMatchObject([{ carrier: 'olva', amount: 1500, weight_g: 5000 }]);
    await accessible(page, 'settings-webhooks');

    // The pipeline board: a deal dragged to another stage, then moved with the keyboard's select.
    await nav.getByRole('link', { name: 'Pipeline', exact: true }).click();
    const card = page.getByRole('listitem', { name: 'Chompas para Hotel Sol' });
    await card.dragTo(page.locator('[data-stage="Proposal"]'));
    await page.locator('[data-stage="Proposal"]').getByRole('listitem', { name: 'Chompas para Hotel Sol' }).waitFor();
    const stageOf = async () => {
      const { data } = await api.GET('/api/v1/crm/deals/{id}', { params: { path: { id: deal.id } } });
      const pipeline = (await api.GET('/api/v1/crm/pipelines/{id}', { params: { path: { id: data.pipeline_id } } })).data;
      return pipeline.stages.find((s) => s.id === data.stage_id)?.name;
    };
    await expect.poll(stageOf, POLL).toBe('Proposal');
    await page.getByLabel('Stage of Chompas para Hotel Sol').focus();
    await page.getByLabel('Stage of Chompas para Hotel Sol').selectOption({ label: 'Negotiation' });
    await page.locator('[data-stage="Negotiation"]').getByRole('listitem', { name: 'Chompas para Hotel Sol' }).waitFor();
    await expect.poll(stageOf, POLL).toBe('Negotiation');
    await accessible(page, 'crm-board');

    // The blog editor: what the server keeps of the HTML is what the preview shows.
    await nav.getByRole('link', { name: 'Blog', exact: true }).click();
    await page.getByRole('link', { name: 'New post' }).click();
    await page.getByLabel('Title').fill('La esquila en Pitumarca');
    await page.getByLabel('Content (HTML)').fill('<h2>Junio</h2><p onclick="steal()">Alpacas <a href="javascript:alert(1)">y más</a></p><script>alert(1)</script>');
    await page.getByRole('button', { name: 'Save' }).click();
    const preview = page.getByRole('region', { name: 'As saved' });
    await preview.getByRole('heading', { name: 'Junio' }).waitFor();
    const kept = await preview.locator('article').innerHTML();
    expect(kept).toContain('Alpacas');
    expect(kept).not.toMatch(/script|onclick|javascript:/);
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByRole('heading', { name: /published/ }).waitFor();
    await accessible(page, 'blog-post');

    // Themes: the free theme installed from the theme store, then made live.
    await nav.getByRole('link', { name: 'Theme store', exact: true }).click();
    // Installed before the installed themes are listed: the row action's answer, not only its click.
    const installed = page.waitForResponse((res) => res.request().method() === 'POST' && /\/theme-store\/[^/]+\/install$/.test(new URL(res.url()).pathname));
    await page.getByRole('row', { name: /Andes/ }).getByRole('button', { name: 'Install' }).click();
    expect((await installed).status()).toBe(201);
    await nav.getByRole('link', { name: 'Themes', exact: true }).click();
    await page.getByRole('row', { name: /Andes/ }).getByRole('button', { name: 'Make live' }).click();
    await page.getByRole('row', { name: /Andes ✓/ }).waitFor();
    expect((await api.GET('/api/v1/theme-store/installed', {})).data).toMatchObject([{ display_name: 'Andes', is_active: true }]);
    await accessible(page, 'themes');

    // Wholesale and the marketplace.
    await nav.getByRole('link', { name: 'Wholesale', exact: true }).click();
    await page.getByRole('navigation', { name: 'Wholesale' }).getByRole('link', { name: 'Quotes' }).click();
    await page.getByText('No quote yet.').waitFor();
    await accessible(page, 'wholesale-quotes');
    await nav.getByRole('link', { name: 'Vendors', exact: true }).click();
    await page.getByRole('row', { name: /Tejidos Q’ero qero@example\.pe PE 12\.5 pending/ }).waitFor();
    await accessible(page, 'marketplace-vendors');
    await page.close();
  }, 180_000);

  it('invites a member with a narrow role: the e-mailed link sets her password and her dashboard shows only what the role allows', async () => {
    const owner = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    owner.setDefaultTimeout(15_000);
    await signIn(owner, 'rosa@inti.pe');
    await owner.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Staff and roles', exact: true }).click();
    // A role made of check-boxes: products and stock, read only.
    const role = owner.getByRole('form', { name: 'New role' });
    await role.getByLabel('Role name').fill('Catalogue reader');
    await role.getByRole('checkbox', { name: /^catalog\.read/ }).check();
    await role.getByRole('checkbox', { name: /^inventory\.read/ }).check();
    await role.getByRole('button', { name: 'Save' }).click();
    await owner.getByRole('form', { name: 'Catalogue reader' }).waitFor();
    await owner.getByRole('button', { name: 'Add a staff member' }).click();
    const invite = owner.getByRole('form', { name: 'Add a staff member' });
    await invite.getByLabel('E-mail').fill('ana@inti.pe');
    await invite.getByLabel('Role').selectOption({ label: 'Catalogue reader' });
    await invite.getByLabel('First name').fill('Ana');
    await invite.getByLabel('Last name').fill('Condori');
    await invite.getByRole('button', { name: 'Add a staff member' }).click();
    await owner.getByRole('cell', { name: 'ana@inti.pe' }).waitFor();
    await owner.close();

    // The invitation's link opens the dashboard's own page, which sets the password and signs her in.
    const mail = await mailbox.next((m) => m.to.includes('ana@inti.pe'));
    const link = /https?:\/\/\S+\/staff\/password\?\S+/.exec(mail.text)![0];
    expect(link.startsWith(`${origin}/staff/password?`)).toBe(true);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(15_000);
    await page.goto(link);
    expect(new URL(page.url()).pathname).toBe('/admin/ui/password');
    await page.getByRole('heading', { name: 'Welcome: choose your password' }).waitFor();
    await accessible(page, 'invitation');
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Save and sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    const nav = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
    expect(nav).toEqual(['Home', 'Products', 'Inventory', 'Translations']);
    await page.getByRole('heading', { name: 'Low stock' }).waitFor();
    await expect.poll(() => page.getByRole('heading', { name: 'Orders to fulfil' }).count()).toBe(0);
    // Products are read, not written: no "New product", no upload, a disabled form.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Products', exact: true }).click();
    await page.getByRole('link', { name: 'Poncho andino' }).click();
    await page.getByRole('heading', { name: 'Images' }).waitFor();
    expect(await page.getByRole('link', { name: 'New product' }).count()).toBe(0);
    expect(await page.getByRole('form', { name: 'Add an image' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Publish' }).count() + (await page.getByRole('button', { name: 'Move to draft' }).count())).toBe(0);
    await accessible(page, 'product-narrow');
    await page.goto(`${origin}/admin/ui/orders`);
    await page.getByRole('alert').getByText('Your role does not allow this page.').waitFor();
    await page.close();
  }, 120_000);

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
