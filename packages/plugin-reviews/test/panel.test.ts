import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, createProduct, MISSING, registerCustomer, reviewsApp } from './helpers.js';

/**
 * The review settings panel: an HTML fragment an admin UI embeds. Read over HTTP, then driven in
 * Debian's Chromium: the host page fetches it with the admin's headers, mounts it, and the
 * panel's form changes a setting through the JSON API with headers the host gives it.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const XSS_TITLE = `Poncho <img src=x onerror="window.__pwned='img'"><script>window.__pwned='script'</script> "quoted" & 'single'`;

let t: TestApp;
let shop: TestTenant;
let admin: ReturnType<typeof caller>;
let origin: string;
let browser: Browser;

const panelUrl = (id: string, query = '') => `/admin/catalog/products/${id}/review-settings-panel${query}`;

beforeAll(async () => {
  t = await reviewsApp();
  shop = await t.createTenant();
  admin = caller(t, shop);
  origin = await t.app.http.listen({ host: '127.0.0.1', port: 0 });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('GET /admin/catalog/products/:id/review-settings-panel over HTTP', () => {
  it('is documented as text/html in /openapi.json', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    const responses = doc.paths['/admin/catalog/products/{id}/review-settings-panel'].get.responses;
    expect(Object.keys(responses['200'].content)).toEqual(['text/html']);
    expect(Object.keys(responses['404'].content)).toEqual(['application/json']);
  });

  it('is an HTML fragment, not cached, with every value escaped and no credential in it', async () => {
    const product = await createProduct(t, shop, { title: XSS_TITLE });
    await admin('POST', `/admin/catalog/products/${product.id}/review-settings`, { field: 'auto_approve', value: 'true' });
    const res = await admin('GET', panelUrl(product.id));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const html = res.body;
    expect(html.startsWith('<section class="qhatu-review-settings"')).toBe(true);
    expect(html).toContain('Poncho &lt;img src=x onerror=&quot;window.__pwned=&#39;img&#39;&quot;&gt;&lt;script&gt;window.__pwned=&#39;script&#39;&lt;/script&gt; &quot;quoted&quot; &amp; &#39;single&#39;');
    expect(html).not.toContain('<img');
    // One script: the panel's own.
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).not.toContain(shop.adminToken);
    expect(html).not.toContain(shop.adminToken.slice(0, 12));
    expect(html).toContain('<tr data-field="auto_approve">');
    expect(html).toMatch(/<tr data-field="auto_approve">[\s\S]*?<td data-role="value">true<\/td>[\s\S]*?<td data-role="source">this product<\/td>/);
  });

  it('puts the host page CSP nonce on its script and style; refuses a nonce that could break out', async () => {
    const product = await createProduct(t, shop);
    const html = (await admin('GET', panelUrl(product.id, '?nonce=r4nd0m-N0nce_value'))).body;
    expect(html).toContain('<script nonce="r4nd0m-N0nce_value">');
    expect(html).toContain('<style nonce="r4nd0m-N0nce_value">');
    for (const nonce of ['"><script>alert(1)</script>', 'short', 'a b c d e f g h']) {
      const res = await admin('GET', panelUrl(product.id, `?nonce=${encodeURIComponent(nonce)}`));
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
      expect(res.body).not.toContain('<script>');
    }
  });

  it('answers with the JSON error body: 404 for an unknown product, 403 for other tokens, 401 without one', async () => {
    const missing = await admin('GET', panelUrl(MISSING));
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toContain('application/json');
    expect(missing.json().error.code).toBe('PRODUCT_NOT_FOUND');
    const product = await createProduct(t, shop);
    const customer = await registerCustomer(t, shop);
    for (const token of [shop.storefrontToken, customer.token]) expect((await caller(t, shop, token)('GET', panelUrl(product.id))).statusCode).toBe(403);
    expect((await t.request({ method: 'GET', url: panelUrl(product.id), headers: { 'x-tenant-id': shop.id } })).statusCode).toBe(401);
  });
});

/**
 * An admin UI on the API's origin (served by the browser's router, as a host app would serve it):
 * it holds the admin's token, gives the panel its headers and mounts the fragment.
 */
function hostPage(nonce?: string): string {
  const n = nonce ? ` nonce="${nonce}"` : '';
  return `<!doctype html><html><head><title>Admin</title></head><body>
  <main id="slot"></main>
  <script${n}>
    window.qhatuAdmin = { headers: () => ({ authorization: 'Bearer ${shop.adminToken}', 'x-tenant-id': '${shop.id}' }) };
    window.mountPanel = async (productId, query) => {
      const res = await fetch('/admin/catalog/products/' + productId + '/review-settings-panel' + (query || ''), { headers: window.qhatuAdmin.headers() });
      if (!res.ok) throw new Error('panel: ' + res.status);
      const html = await res.text();
      document.getElementById('slot').replaceChildren(document.createRange().createContextualFragment(html));
    };
  </script></body></html>`;
}

async function openHost(options: { csp?: string; nonce?: string } = {}): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.route(`${origin}/host.html`, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', headers: options.csp ? { 'content-security-policy': options.csp } : {}, body: hostPage(options.nonce) }),
  );
  await page.goto(`${origin}/host.html`);
  return { page, errors };
}

const row = (page: Page, field: string) => page.locator(`tr[data-field="${field}"]`);

describe('the panel in a real browser', () => {
  it('renders the effective settings, with the product title as text and nothing of it run', async () => {
    const product = await createProduct(t, shop, { title: XSS_TITLE });
    await admin('POST', '/admin/settings/reviews', { field: 'auto_approve_min_rating', value: '3' });
    await admin('POST', `/admin/catalog/products/${product.id}/review-settings`, { field: 'visible', value: 'false' });
    const { page, errors } = await openHost();
    await page.evaluate((id) => (globalThis as unknown as { mountPanel(id: string): Promise<void> }).mountPanel(id), product.id);
    await expect.poll(() => page.locator('[data-role=product-title]').textContent()).toBe(XSS_TITLE);
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    expect(await page.locator('.qhatu-review-settings img, .qhatu-review-settings [data-role=product-title] script').count()).toBe(0);
    expect(await row(page, 'visible').locator('[data-role=value]').textContent()).toBe('false');
    expect(await row(page, 'visible').locator('[data-role=source]').textContent()).toBe('this product');
    expect(await row(page, 'auto_approve_min_rating').locator('[data-role=value]').textContent()).toBe('3');
    expect(await row(page, 'auto_approve_min_rating').locator('[data-role=source]').textContent()).toBe('store');
    expect(await row(page, 'auto_approve_min_rating').locator('button[data-reset]').isHidden()).toBe(true);
    expect(await row(page, 'visible').locator('button[data-reset]').isVisible()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
    await admin('POST', '/admin/settings/reviews', { field: 'auto_approve_min_rating', value: '1' });
  });

  it('posts a change through the API with the host page headers; the API then shows it; resetting removes it', async () => {
    const product = await createProduct(t, shop);
    const { page, errors } = await openHost();
    await page.evaluate((id) => (globalThis as unknown as { mountPanel(id: string): Promise<void> }).mountPanel(id), product.id);
    await page.selectOption('select[name=field]', 'auto_approve_min_rating');
    await page.fill('input[name=value]', '4');
    await page.click('button[type=submit]');
    await expect.poll(() => page.locator('[data-role=status]').textContent()).toBe('Saved.');
    expect(await row(page, 'auto_approve_min_rating').locator('[data-role=value]').textContent()).toBe('4');
    expect(await row(page, 'auto_approve_min_rating').locator('[data-role=source]').textContent()).toBe('this product');
    const shown = (await admin('GET', `/admin/catalog/products/${product.id}/review-settings`)).json().data;
    expect(shown.overrides).toEqual({ auto_approve_min_rating: 4 });
    expect(shown.settings.auto_approve_min_rating).toBe(4);

    // A bad value: the API's sentence, shown as text; nothing changes.
    await page.selectOption('select[name=field]', 'auto_approve');
    await page.fill('input[name=value]', `<img src=x onerror="window.__pwned='value'">`);
    await page.click('button[type=submit]');
    await expect.poll(() => page.locator('[data-role=status]').textContent()).toBe('The setting auto_approve takes true or false');
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    expect((await admin('GET', `/admin/catalog/products/${product.id}/review-settings`)).json().data.overrides).toEqual({ auto_approve_min_rating: 4 });

    await row(page, 'auto_approve_min_rating').locator('button[data-reset]').click();
    await expect.poll(() => row(page, 'auto_approve_min_rating').locator('[data-role=source]').textContent()).toBe('store');
    expect(await row(page, 'auto_approve_min_rating').locator('[data-role=value]').textContent()).toBe('1');
    expect((await admin('GET', `/admin/catalog/products/${product.id}/review-settings`)).json().data.overrides).toEqual({});
    expect(errors).toEqual([]);
    await page.close();
  });

  it('says so, and sends nothing, when the host page gives it no credentials', async () => {
    const product = await createProduct(t, shop);
    const { page } = await openHost();
    await page.evaluate((id) => (globalThis as unknown as { mountPanel(id: string): Promise<void> }).mountPanel(id), product.id);
    await page.evaluate(() => delete (globalThis as unknown as { qhatuAdmin?: unknown }).qhatuAdmin);
    await page.fill('input[name=value]', 'false');
    await page.click('button[type=submit]');
    await expect.poll(() => page.locator('[data-role=status]').textContent()).toBe('The admin page gives the panel no credentials (window.qhatuAdmin.headers).');
    expect((await admin('GET', `/admin/catalog/products/${product.id}/review-settings`)).json().data.overrides).toEqual({});
    await page.close();
  });

  it('works under a strict Content-Security-Policy with the host page nonce', async () => {
    const product = await createProduct(t, shop);
    const nonce = 'Zm9yLXRoZS1wYW5lbA';
    const { page, errors } = await openHost({ nonce, csp: `default-src 'self'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'` });
    await page.evaluate(({ id, n }) => (globalThis as unknown as { mountPanel(id: string, q: string): Promise<void> }).mountPanel(id, `?nonce=${n}`), { id: product.id, n: nonce });
    await page.selectOption('select[name=field]', 'verified_purchases_only');
    await page.fill('input[name=value]', 'true');
    await page.click('button[type=submit]');
    await expect.poll(() => page.locator('[data-role=status]').textContent()).toBe('Saved.');
    expect((await admin('GET', `/admin/catalog/products/${product.id}/review-settings`)).json().data.overrides).toEqual({ verified_purchases_only: true });
    expect(errors).toEqual([]);
    await page.close();
  });
});
