import { definePlugin } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessible, POLL, startDashboard, type Dashboard } from './helpers.js';

/** A plugin that sends one e-mail of its own, whose texts the store writes. */
const greeter = definePlugin({
  name: 'greeter',
  mails: [{ key: 'greeter.welcome', description: 'Welcomes a customer who just signed up', variables: { first_name: 'The customer’s first name', shop: 'The store’s name' } }],
});

let d: Dashboard;
let t: TestApp;
let a: TestTenant;

beforeAll(async () => {
  d = await startDashboard({ build: 'own', plugins: [greeter] });
  ({ t, a } = d);
  await d.addMember('rosa@inti.pe', ['Rosa', 'Quispe'], 'owner');
  // A member who only manages markets: the settings open for her, the currencies only to read.
  await d.addMember('mila@inti.pe', ['Mila', 'Condori'], { name: 'Markets', permissions: ['markets.manage'] });
  await d.api.PUT('/api/v1/locales', { body: { default_locale: 'en', locales: ['es'] } });
}, 240_000);

afterAll(async () => {
  await d?.close();
});

/** A read of the store's API with its admin key. */
const read = async (url: string, tenant: TestTenant = a) => (await t.request({ method: 'GET', url, headers: tenant.headers() })).json().data;

/** The greeter's mail as the API answers it (other plugins of the store may send mails too). */
const welcome = async () => ((await read('/api/v1/mail-texts')) as Array<{ key: string; texts: Array<{ locale: string }> }>).find((m) => m.key === 'greeter.welcome')!;

describe('the store’s currencies, markets and e-mail texts', () => {
  it('adds USD with a rate, creates a market, refuses a second one taking the same country, and deletes it', async () => {
    const page = await d.signedIn('rosa@inti.pe');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
    const tabs = page.getByRole('navigation', { name: 'Settings' });
    await tabs.getByRole('link', { name: 'Currencies' }).click();
    const currencies = page.getByRole('form', { name: 'Currencies' });
    await currencies.getByText('PEN', { exact: true }).waitFor();
    await currencies.getByText('The store sells only in its default currency.').waitFor();
    expect(await currencies.getByRole('textbox').count()).toBe(0);

    // USD at a rate, rounded up to the cent; EUR without a rate (only prices set in euros).
    await currencies.getByRole('button', { name: 'Add currency' }).click();
    let row = currencies.getByRole('row').last();
    await row.getByLabel('Code').fill('usd');
    await row.getByLabel('Rate').fill('0.27');
    await row.getByLabel('Rounding', { exact: true }).selectOption('up');
    await currencies.getByRole('button', { name: 'Add currency' }).click();
    row = currencies.getByRole('row').last();
    await row.getByLabel('Code').fill('EUR');
    await row.getByLabel('Rounding increment').fill('5');
    await currencies.getByRole('button', { name: 'Save' }).click();
    await currencies.getByText('Saved').waitFor();
    expect((await read('/api/v1/currencies')).currencies).toEqual([
      { code: 'PEN', rate: '1', rounding_increment: 1, rounding: 'nearest', decimals: 2 },
      { code: 'EUR', rate: null, rounding_increment: 5, rounding: 'nearest', decimals: 2 },
      { code: 'USD', rate: '0.27', rounding_increment: 1, rounding: 'up', decimals: 2 },
    ]);
    // Read again as the store keeps them.
    await expect.poll(() => currencies.getByLabel('Code').evaluateAll((inputs) => inputs.map((i) => (i as unknown as { value: string }).value)), POLL).toEqual(['EUR', 'USD']);
    expect(await currencies.getByLabel('Rate').last().inputValue()).toBe('0.27');
    await accessible(page, 'settings-currencies');

    // A market for the United States and Canada, in dollars and English, tax added at checkout.
    await tabs.getByRole('link', { name: 'Markets' }).click();
    await page.getByText('No markets yet').waitFor();
    await page.getByRole('button', { name: 'New market' }).click();
    let form = page.getByRole('form', { name: 'New market' });
    expect(await form.getByLabel('Currency').locator('option').allTextContents()).toEqual(['PEN', 'EUR', 'USD']);
    expect(await form.getByLabel('Default language').locator('option').allTextContents()).toEqual(['en', 'es']);
    await form.getByLabel('Handle').fill('us');
    await form.getByLabel('Name').fill('United States');
    await form.getByLabel('Countries').fill('us, ca');
    await form.getByLabel('Currency').selectOption('USD');
    await form.getByLabel('Tax').selectOption('false');
    await form.getByRole('button', { name: 'Save' }).click();
    const us = page.getByRole('row', { name: /us United States US, CA USD en added/ });
    await us.waitFor();
    expect(await read('/api/v1/markets')).toMatchObject([{ handle: 'us', name: 'United States', countries: ['US', 'CA'], currency: 'USD', default_locale: 'en', prices_include_tax: false }]);
    await accessible(page, 'settings-markets');

    // A second market taking Canada is refused with the API's reason; nothing is created.
    await page.getByRole('button', { name: 'New market' }).click();
    form = page.getByRole('form', { name: 'New market' });
    await form.getByLabel('Handle').fill('north');
    await form.getByLabel('Name').fill('North');
    await form.getByLabel('Countries').fill('CA, MX');
    await form.getByLabel('Currency').selectOption('USD');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByRole('alert').getByText(/CA/).waitFor();
    expect(await read('/api/v1/markets')).toHaveLength(1);
    await form.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByRole('form', { name: 'New market' }).count()).toBe(0);

    // The market's currency stays listed: taking USD off is a 409 naming the market.
    await tabs.getByRole('link', { name: 'Currencies' }).click();
    await currencies.getByRole('button', { name: 'Remove USD' }).click();
    await currencies.getByRole('button', { name: 'Save' }).click();
    await currencies.getByRole('alert').getByText(/"us"/).waitFor();
    expect((await read('/api/v1/currencies')).currencies.map((c: { code: string }) => c.code)).toEqual(['PEN', 'EUR', 'USD']);

    // Edited: the tax mode back to the store's setting.
    await tabs.getByRole('link', { name: 'Markets' }).click();
    await us.getByRole('button', { name: 'Edit us' }).click();
    form = page.getByRole('form', { name: 'Edit market United States' });
    expect(await form.getByLabel('Countries').inputValue()).toBe('US, CA');
    await form.getByLabel('Tax').selectOption('');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row', { name: /us United States US, CA USD en store setting/ }).waitFor();
    expect((await read('/api/v1/markets'))[0].prices_include_tax).toBeNull();

    // Removed after a confirmation; cancelling keeps it.
    await page.getByRole('button', { name: 'Remove us' }).click();
    const ask = page.getByRole('group', { name: /Remove the market “United States”\?/ });
    await ask.getByRole('button', { name: 'Cancel' }).click();
    expect(await read('/api/v1/markets')).toHaveLength(1);
    await page.getByRole('button', { name: 'Remove us' }).click();
    await ask.getByRole('button', { name: 'Remove the market' }).click();
    await page.getByText('No markets yet').waitFor();
    expect(await read('/api/v1/markets')).toEqual([]);

    // Another store sees none of it.
    const other = await t.createTenant({ name: 'Otra tienda', currency: 'PEN' });
    expect((await read('/api/v1/currencies', other)).currencies.map((c: { code: string }) => c.code)).toEqual(['PEN']);
    await page.close();
  }, 180_000);

  it('opens the settings to a member who only manages markets, the currencies read-only', async () => {
    const page = await d.signedIn('mila@inti.pe');
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).toEqual(['Home', 'Settings']);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
    const tabs = page.getByRole('navigation', { name: 'Settings' });
    await expect.poll(() => tabs.getByRole('link').allTextContents(), POLL).toEqual(['Store', 'Languages', 'Currencies', 'Markets']);
    await tabs.getByRole('link', { name: 'Currencies' }).click();
    const section = page.getByRole('region', { name: 'Currencies' });
    await section.getByRole('row', { name: 'USD 0.27 1 Up' }).waitFor();
    await section.getByRole('row', { name: /EUR No rate: explicit prices only 5 Nearest/ }).waitFor();
    expect(await page.getByRole('form').count()).toBe(0);
    expect(await page.getByRole('textbox').count()).toBe(0);
    await accessible(page, 'settings-currencies-read-only');
    await tabs.getByRole('link', { name: 'Markets' }).click();
    await page.getByRole('button', { name: 'New market' }).waitFor();
    await page.close();
  }, 120_000);

  it('writes a Spanish text of a plugin’s e-mail, shows what staff typed as text, and falls back once it is removed', async () => {
    const dialogs: string[] = [];
    const page = await d.signedIn('rosa@inti.pe');
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'E-mails' }).click();
    const row = page.getByRole('row', { name: /greeter\.welcome Welcomes a customer who just signed up Built-in message/ });
    await row.getByRole('link', { name: 'greeter.welcome' }).click();
    await page.getByText('{{first_name}}', { exact: true }).waitFor();
    await page.getByText('The customer’s first name').waitFor();
    await page.getByText('{{shop}}', { exact: true }).waitFor();
    const english = page.getByRole('form', { name: 'Text in en (default language)' });
    const spanish = page.getByRole('form', { name: 'Text in es' });
    await english.getByText('No text of its own: it sends the built-in message.').waitFor();
    await spanish.getByText('No text of its own: it sends the built-in message.').waitFor();
    await accessible(page, 'settings-mail-text');

    await spanish.getByLabel('Subject').fill('Bienvenida a {{shop}}, {{first_name}}');
    await spanish.getByLabel('Text').fill('Hola {{first_name}}:\n\n<script>alert("hola")</script><b>gracias</b>');
    await spanish.getByRole('button', { name: 'Save' }).click();
    const saved = spanish.getByRole('region', { name: 'Saved text in es' });
    await saved.getByText('<script>alert("hola")</script><b>gracias</b>', { exact: false }).waitFor();
    await saved.getByText('Bienvenida a {{shop}}, {{first_name}}').waitFor();
    expect(await page.locator('main b', { hasText: 'gracias' }).count()).toBe(0);
    expect(await page.locator('main script').count()).toBe(0);
    expect(dialogs).toEqual([]);
    expect((await welcome()).texts).toMatchObject([{ locale: 'es', subject: 'Bienvenida a {{shop}}, {{first_name}}', text: 'Hola {{first_name}}:\n\n<script>alert("hola")</script><b>gracias</b>' }]);

    // A placeholder the mail does not have is refused with the API's reason.
    await english.getByLabel('Subject').fill('Welcome, {{nickname}}');
    await english.getByLabel('Text').fill('Hello {{first_name}}');
    await english.getByRole('button', { name: 'Save' }).click();
    await english.getByRole('alert').waitFor();
    // Written in the default language: the Spanish text, once removed, falls back to it.
    await english.getByLabel('Subject').fill('Welcome to {{shop}}');
    await english.getByRole('button', { name: 'Save' }).click();
    await english.getByRole('region', { name: 'Saved text in en' }).getByText('Welcome to {{shop}}').waitFor();
    await spanish.getByRole('button', { name: 'Remove this text' }).click();
    await spanish.getByText('No text of its own: it sends the default language’s (en) text.').waitFor();
    expect((await welcome()).texts.map((x: { locale: string }) => x.locale)).toEqual(['en']);
    await page.getByRole('button', { name: /All e-mails/ }).click();
    await page.getByRole('row', { name: /greeter\.welcome .* en$/ }).waitFor();
    await page.close();
  }, 120_000);
});
