import type { QhatuClient } from '@qhatu/client';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessible, POLL, startDashboard, type Dashboard } from './helpers.js';

let d: Dashboard;
let t: TestApp;
let a: TestTenant;
let api: QhatuClient;
let productId: string;

beforeAll(async () => {
  d = await startDashboard({ build: 'own' });
  ({ t, a, api } = d);
  await d.addMember('rosa@inti.pe', ['Rosa', 'Quispe'], 'owner');
  // A member who reads the store's settings and keys, changes nothing.
  await d.addMember('eva@inti.pe', ['Eva', 'Choque'], { name: 'Auditor', permissions: ['store.read'] });
  // A member who only fulfils orders: no settings at all.
  await d.addMember('juan@inti.pe', ['Juan', 'Mamani'], { name: 'Warehouse', permissions: ['orders.read', 'orders.fulfil'] });
  productId = (await api.POST('/api/v1/catalog/products', { body: { title: 'Chompa de alpaca', description_html: '<p>Tejida a mano</p>', status: 'active', variants: [{ title: 'Gris', price: 15900 }] } as never })).data.id;
}, 240_000);

afterAll(async () => {
  await d?.close();
});

/** The status of a call with `token` on the store's API. */
const statusWith = async (token: string) => (await t.request({ method: 'GET', url: '/api/v1/locales', headers: a.headers(token) })).statusCode;

describe('the store’s settings for its staff', () => {
  it('renames the store, keeps its currency read-only, issues an API key shown once and revokes it at once', async () => {
    const page = await d.signedIn('rosa@inti.pe');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
    const store = page.getByRole('form', { name: 'Store' });
    await expect.poll(() => store.getByLabel('Store name').inputValue()).toBe('Tienda Inti');
    await store.getByText('PEN', { exact: true }).waitFor();
    await store.getByText(/The currency stays as the store was created/).waitFor();
    await store.getByLabel('Store name').fill('Tienda Inti Cusco');
    await store.getByRole('button', { name: 'Save' }).click();
    await store.getByText('Saved').waitFor();
    expect((await api.GET('/api/v1/store', {})).data).toMatchObject({ name: 'Tienda Inti Cusco', currency: 'PEN' });
    await accessible(page, 'settings-store-name');

    // A storefront key: its token is shown once, then only its first characters.
    const tabs = page.getByRole('navigation', { name: 'Settings' });
    await tabs.getByRole('link', { name: 'API keys' }).click();
    const issue = page.getByRole('form', { name: 'New API key' });
    await issue.getByLabel('Name').fill('Tienda web');
    await issue.getByLabel('Kind').selectOption('storefront');
    await issue.getByRole('button', { name: 'Issue key' }).click();
    await page.getByText('The key “Tienda web”, shown only now').waitFor();
    const token = (await page.locator('code.secret').textContent())!;
    expect(token).toMatch(/^qh/);
    expect(await statusWith(token)).toBe(200);
    const row = page.getByRole('row', { name: /Tienda web Storefront/ });
    await row.getByText('active').waitFor();
    const [listed] = (await api.GET('/api/v1/api-keys', {})).data.filter((k) => k.name === 'Tienda web');
    expect(token.startsWith(listed.token_prefix)).toBe(true);
    await accessible(page, 'settings-api-keys');

    // Once the page is left, the token is gone from it.
    await tabs.getByRole('link', { name: 'Store' }).click();
    await tabs.getByRole('link', { name: 'API keys' }).click();
    await row.waitFor();
    expect(await page.locator('code.secret').count()).toBe(0);
    expect(await page.content()).not.toContain(token);

    // Revoked with the keyboard: refused by the API at once.
    await row.getByRole('button', { name: 'Revoke Tienda web' }).focus();
    await page.keyboard.press('Enter');
    await row.getByText('revoked').waitFor();
    expect(await statusWith(token)).toBe(401);
    expect(await row.getByRole('button', { name: /Revoke/ }).count()).toBe(0);
    await page.close();
  }, 120_000);

  it('sets the store’s languages, in Spanish', async () => {
    const page = await d.signedIn('rosa@inti.pe');
    await page.getByLabel('Language').first().selectOption('es');
    await page.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name: 'Configuración', exact: true }).click();
    await page.getByRole('navigation', { name: 'Configuración' }).getByRole('link', { name: 'Idiomas' }).click();
    const form = page.getByRole('form', { name: 'Idiomas' });
    await form.getByLabel('Idioma predeterminado').fill('es');
    await form.getByLabel('Otros idiomas').fill('en, qu');
    await form.getByRole('button', { name: 'Guardar' }).click();
    await form.getByText('Guardado').waitFor();
    expect((await api.GET('/api/v1/locales', {})).data).toEqual({ default_locale: 'es', locales: ['es', 'en', 'qu'] });
    // A tag that is not one is refused by the server with its reason; nothing changes.
    await form.getByLabel('Otros idiomas').fill('en, english!');
    await form.getByRole('button', { name: 'Guardar' }).click();
    await form.getByRole('alert').waitFor();
    expect((await api.GET('/api/v1/locales', {})).data.locales).toEqual(['es', 'en', 'qu']);
    await accessible(page, 'settings-locales-es');
    await page.getByLabel('Idioma').first().selectOption('en');
    await page.close();
  }, 120_000);

  it('translates a product into the store’s other languages; an emptied translation reads the default again', async () => {
    await api.PUT('/api/v1/locales', { body: { default_locale: 'es', locales: ['en', 'qu'] } });
    const page = await d.signedIn('rosa@inti.pe');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Translations', exact: true }).click();
    const tabs = page.getByRole('navigation', { name: 'Translations' });
    await expect.poll(() => tabs.getByRole('link').allTextContents(), POLL).toEqual(['Products', 'Collections', 'Blog posts', 'Shipping services']);
    await page.getByRole('searchbox', { name: 'Search' }).fill('chompa');
    await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
    await page.getByRole('link', { name: 'Chompa de alpaca' }).click();
    const english = page.getByRole('form', { name: 'In en' });
    await english.getByText('Not translated yet').waitFor();
    await page.getByRole('form', { name: 'In qu' }).waitFor();
    await english.getByText('Default: Chompa de alpaca').waitFor();
    await english.getByLabel('title').fill('Alpaca sweater');
    await english.getByLabel('description html').fill('<p>Hand-knitted</p>');
    await english.getByRole('button', { name: 'Save' }).click();
    await english.getByText('Translated: a field left empty').waitFor();
    await accessible(page, 'translations-product');
    const read = async (locale: string) => (await api.GET('/api/v1/catalog/products/{id}', { params: { path: { id: productId }, query: { locale } as never } })).data.title;
    expect(await read('en')).toBe('Alpaca sweater');
    expect(await read('qu')).toBe('Chompa de alpaca');
    // Emptying every field removes the translation.
    await english.getByLabel('title').fill('');
    await english.getByLabel('description html').fill('');
    await english.getByRole('button', { name: 'Save' }).click();
    await english.getByText('Not translated yet').waitFor();
    expect(await read('en')).toBe('Chompa de alpaca');
    await page.close();
  }, 120_000);

  it('shows a member who only reads the store its settings and keys without a way to change them, on a phone', async () => {
    const page = await d.signedIn('eva@inti.pe', { width: 390, height: 844 });
    await page.getByRole('button', { name: 'Menu' }).click();
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).toEqual(['Home', 'Settings']);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
    const store = page.getByRole('region', { name: 'Store' });
    await store.getByText('Tienda Inti Cusco').waitFor();
    expect(await page.getByRole('form').count()).toBe(0);
    expect(await page.getByRole('textbox').count()).toBe(0);
    await accessible(page, 'settings-store-read-only-phone');
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('row', { name: /Tienda web Storefront/ }).waitFor();
    expect(await page.getByRole('form', { name: 'New API key' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /Revoke/ }).count()).toBe(0);
    await accessible(page, 'settings-api-keys-read-only-phone');
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Languages' }).click();
    await page.getByRole('region', { name: 'Languages' }).getByText('en, qu').waitFor();
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
    await page.close();

    // A member of the warehouse has no settings.
    const other = await d.signedIn('juan@inti.pe');
    expect(await other.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).toEqual(['Home', 'Orders']);
    await other.goto(`${d.origin}/admin/ui/settings/api-keys`);
    await other.getByRole('alert').getByText('Your role does not allow this page.').waitFor();
    await other.close();
  }, 120_000);
});
