import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { caller, createCustomer, customersApp, mailServer, registrationMode } from './helpers.js';

/**
 * A customer's locale and the registration e-mails in it (decision 0098): a store in Lima selling
 * in es-PE (its default) and en writes its own texts; a real SMTP server on 127.0.0.1 receives
 * the mails, and Debian's Chromium shows their HTML part.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const REGISTER = '/api/v1/auth/customer/register';
const LINK_MAIL = 'customers.account-link';

let mail: Awaited<ReturnType<typeof mailServer>>;
let t: TestApp;
let browser: Browser;
let shop: TestTenant;
let api: ReturnType<typeof caller>;
beforeAll(async () => {
  mail = await mailServer();
  t = await customersApp({ env: { SMTP_URL: mail.url, QHATU_PUBLIC_URL: 'https://api.shop.example' } });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await mail?.close();
});
// A store of its own per test: registrations are rate limited per store and client address.
beforeEach(async () => {
  shop = await limaStore('Tienda Inti');
  api = caller(t, shop);
});

/** A store selling in es-PE (its default) and en. */
async function limaStore(name: string): Promise<TestTenant> {
  const tenant = await t.createTenant({ name });
  const res = await caller(t, tenant)('PUT', '/api/v1/locales', { default_locale: 'es-PE', locales: ['en'] });
  if (res.statusCode !== 200) throw new Error(`locales not set: ${res.body}`);
  return tenant;
}

const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2)}@example.com`;
const registerAs = (tenant: TestTenant, payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
  t.request({ method: 'POST', url: REGISTER, headers: { ...tenant.headers(tenant.storefrontToken), ...headers }, payload });

/** The one message `address` received, as the SMTP server parsed it. */
async function onlyMail(address: string) {
  await expect.poll(() => mail.to(address).length).toBe(1);
  const [received] = mail.to(address);
  return received;
}

describe('GET /api/v1/mail-texts', () => {
  it('lists the registration e-mails with their variables and the store’s texts', async () => {
    const put = await api('PUT', `/api/v1/mail-texts/${LINK_MAIL}/es-PE`, { subject: '{{store}}: termina tu cuenta', text: 'Hola:\n\n{{link}}' });
    expect(put.statusCode).toBe(200);
    const res = await api('GET', '/api/v1/mail-texts');
    expect(res.statusCode).toBe(200);
    const mine = (res.json().data as Array<{ key: string; plugin: string; variables: Record<string, string>; texts: Array<{ locale: string }> }>).filter((m) => m.plugin === 'customers');
    expect(mine.map((m) => m.key)).toEqual(['customers.account-exists', 'customers.account-link', 'customers.account-unavailable']);
    const link = mine.find((m) => m.key === LINK_MAIL)!;
    expect(Object.keys(link.variables).sort()).toEqual(['email', 'expires_at', 'link', 'store']);
    expect(link.variables.link).toMatch(/account link/);
    expect(link.texts).toEqual([expect.objectContaining({ locale: 'es-PE', subject: '{{store}}: termina tu cuenta' })]);
    expect(mine.find((m) => m.key === 'customers.account-exists')!.texts).toEqual([]);
    // Another store sees the mails, not this store's texts.
    const other = await limaStore('Otra Tienda');
    const theirs = (await caller(t, other)('GET', `/api/v1/mail-texts/${LINK_MAIL}`)).json().data;
    expect(theirs.texts).toEqual([]);
  });

  it('refuses a placeholder the mail does not have and a locale the store does not list', async () => {
    const unknown = await api('PUT', `/api/v1/mail-texts/${LINK_MAIL}/en`, { subject: 'Hi {{first_name}}', text: '{{link}} {{unknown}}' });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error.code).toBe('MAIL_VARIABLE_UNKNOWN');
    expect(unknown.json().error.details[0].unknown).toEqual(['first_name', 'unknown']);
    const fr = await api('PUT', `/api/v1/mail-texts/${LINK_MAIL}/fr`, { subject: 'Bonjour', text: '{{link}}' });
    expect(fr.statusCode).toBe(422);
    expect(fr.json().error.code).toBe('LOCALE_NOT_LISTED');
    expect((await api('GET', `/api/v1/mail-texts/${LINK_MAIL}`)).json().data.texts).toEqual([]);
  });
});

describe("a customer's locale", () => {
  it('is set by staff on create and update, normalized, shown, and one of the store’s locales', async () => {
    const made = await createCustomer(t, shop, { email: unique('ana'), locale: 'EN' });
    expect(made.locale).toBe('en');
    expect((await api('GET', `/api/v1/customers/${made.id}`)).json().data.locale).toBe('en');
    const listed = (await api('GET', `/api/v1/customers?q=${encodeURIComponent(made.email)}`)).json().data;
    expect(listed.map((c: { locale: string | null }) => c.locale)).toEqual(['en']);
    const none = await createCustomer(t, shop, { email: unique('luz') });
    expect(none.locale).toBeNull();

    const fr = await api('POST', '/api/v1/customers', { email: unique('fr'), locale: 'fr' });
    expect(fr.statusCode).toBe(422);
    expect(fr.json().error).toMatchObject({ code: 'LOCALE_NOT_LISTED', details: [expect.objectContaining({ path: 'body.locale', locales: ['es-PE', 'en'] })] });
    expect((await api('POST', '/api/v1/customers', { email: unique('bad'), locale: 'english' })).statusCode).toBe(400);

    const patched = await api('PATCH', `/api/v1/customers/${made.id}`, { locale: 'es-pe' });
    expect(patched.json().data.locale).toBe('es-PE');
    const refused = await api('PATCH', `/api/v1/customers/${made.id}`, { locale: 'qu', first_name: 'Never' });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error.code).toBe('LOCALE_NOT_LISTED');
    expect((await api('GET', `/api/v1/customers/${made.id}`)).json().data).toMatchObject({ locale: 'es-PE', first_name: null });
    expect((await api('PATCH', `/api/v1/customers/${made.id}`, { locale: null })).json().data.locale).toBeNull();
  });

  it('is changed by the customer on their own account (REST and GraphQL)', async () => {
    await registrationMode(t, shop, 'instant');
    const res = await registerAs(shop, { email: unique('self'), password: 'correct horse battery' });
    expect(res.statusCode).toBe(201);
    const { token, customer } = res.json().data;
    // Registered in the store's default locale: kept as none (the store's default, whatever it becomes).
    expect(customer.locale).toBeNull();
    const me = caller(t, shop, token);
    expect((await me('PATCH', '/api/v1/customers/me', { locale: 'en' })).json().data.locale).toBe('en');
    const fr = await me('PATCH', '/api/v1/customers/me', { locale: 'fr' });
    expect(fr.statusCode).toBe(422);
    expect(fr.json().error.code).toBe('LOCALE_NOT_LISTED');
    const gql = await me('POST', '/graphql', { query: 'mutation { updateProfile(input: {locale: "es-PE"}) { locale } }' });
    expect(gql.json()).toEqual({ data: { updateProfile: { locale: 'es-PE' } } });
    const wrong = await me('POST', '/graphql', { query: 'mutation { updateProfile(input: {locale: "de"}) { locale } }' });
    expect(wrong.json().errors[0].extensions.code).toBe('LOCALE_NOT_LISTED');
    expect((await me('GET', '/api/v1/customers/me')).json().data.locale).toBe('es-PE');
  });

  it('comes with a registration: the one asked for, else the request’s when it is not the default', async () => {
    await registrationMode(t, shop, 'instant');
    const asked = await registerAs(shop, { email: unique('asked'), password: 'correct horse battery', locale: 'en' });
    expect(asked.json().data.customer.locale).toBe('en');
    const browsed = await registerAs(shop, { email: unique('browsed'), password: 'correct horse battery' }, { 'accept-language': 'en-US,en;q=0.8' });
    expect(browsed.json().data.customer.locale).toBe('en');
    const unlisted = await registerAs(shop, { email: unique('fr'), password: 'correct horse battery', locale: 'fr' });
    expect(unlisted.statusCode).toBe(422);
    expect(unlisted.json().error.code).toBe('LOCALE_NOT_LISTED');
  });

  it('is kept by the account link, and dropped when the store no longer lists it by the time the link is used', async () => {
    const address = unique('later');
    expect((await registerAs(shop, { email: address, locale: 'en' })).statusCode).toBe(202);
    const received = await onlyMail(address);
    expect((await api('PUT', '/api/v1/locales', { default_locale: 'es-PE', locales: [] })).statusCode).toBe(200);
    const done = await t.request({ method: 'POST', url: '/api/v1/auth/customer/activate', headers: shop.headers(shop.storefrontToken), payload: { token: new URL(received.link!).searchParams.get('token'), password: 'my very own password' } });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().data.customer.locale).toBeNull();
  });
});

describe('the registration e-mail in the locale the request chose', () => {
  it('is the built-in one until the store writes a text in that locale or its default', async () => {
    const english = unique('english');
    expect((await registerAs(shop, { email: english }, { 'accept-language': 'en' })).statusCode).toBe(202);
    const builtIn = await onlyMail(english);
    expect(builtIn.subject).toBe('Tienda Inti: finish setting up your account');
    expect(builtIn.text).toContain('To choose your password and finish, open this link');

    // The store's Spanish text: the default locale's, so every locale without its own reads it.
    const put = await api('PUT', `/api/v1/mail-texts/${LINK_MAIL}/es-PE`, {
      subject: '{{store}}: termina de crear tu cuenta',
      text: 'Hola:\n\nAlguien pidió abrir una cuenta en {{store}} con {{email}}.\nÁbrela aquí:\n{{link}}\n\nEl enlace vale hasta el {{ expires_at }} UTC.',
    });
    expect(put.statusCode).toBe(200);
    const spanish = unique('spanish');
    expect((await registerAs(shop, { email: spanish })).statusCode).toBe(202);
    const es = await onlyMail(spanish);
    expect(es.subject).toBe('Tienda Inti: termina de crear tu cuenta');
    expect(es.text).toContain(`Alguien pidió abrir una cuenta en Tienda Inti con ${spanish}.`);
    expect(es.link).toMatch(/^https:\/\/api\.shop\.example\/account\/activate\?token=qhl_[A-Za-z0-9_-]{43}$/);
    expect(es.text).toMatch(/El enlace vale hasta el \d{4}-\d\d-\d\d \d\d:\d\d UTC\./);
    // The link it carries works.
    const activated = await t.request({ method: 'POST', url: '/api/v1/auth/customer/activate', headers: shop.headers(shop.storefrontToken), payload: { token: new URL(es.link!).searchParams.get('token'), password: 'mi propia contraseña' } });
    expect(activated.statusCode).toBe(200);
    expect(activated.json().data.customer.locale).toBeNull();

    // Without an English text, an English registration reads the store's default one.
    const stillSpanish = unique('still');
    await registerAs(shop, { email: stillSpanish, locale: 'en' });
    expect((await onlyMail(stillSpanish)).subject).toBe('Tienda Inti: termina de crear tu cuenta');

    expect((await api('PUT', `/api/v1/mail-texts/${LINK_MAIL}/en`, { subject: '{{store}}: your account awaits', text: 'Hi,\n\nFinish here:\n{{link}}' })).statusCode).toBe(200);
    const english2 = unique('english2');
    await registerAs(shop, { email: english2 }, { 'accept-language': 'en' });
    const en = await onlyMail(english2);
    expect(en.subject).toBe('Tienda Inti: your account awaits');
    expect(en.text).toMatch(/^Hi,\n\nFinish here:\nhttps:\/\/api\.shop\.example\/account\/activate\?token=qhl_/);
    // The customer it creates keeps the locale the registration chose.
    const done = await t.request({ method: 'POST', url: '/api/v1/auth/customer/activate', headers: shop.headers(shop.storefrontToken), payload: { token: new URL(en.link!).searchParams.get('token'), password: 'my very own password' } });
    expect(done.json().data.customer.locale).toBe('en');

    // Another store's texts are never used.
    const other = await limaStore('Otra Tienda');
    const theirs = unique('theirs');
    await registerAs(other, { email: theirs }, { 'accept-language': 'en' });
    expect((await onlyMail(theirs)).subject).toBe('Otra Tienda: finish setting up your account');
    const theirsEs = unique('theirs-es');
    await registerAs(other, { email: theirsEs });
    expect((await onlyMail(theirsEs)).subject).toBe('Otra Tienda: finish setting up your account');
  });

  it('has an HTML part where what staff wrote is text, never markup (seen in Chromium)', async () => {
    const put = await api('PUT', `/api/v1/mail-texts/${LINK_MAIL}/es-PE`, {
      subject: '{{store}}: <b>tu cuenta</b>',
      text: 'Hola <script>document.title = "owned"</script> <img src=x onerror="document.title=1">\n\nSigue: {{link}}',
    });
    expect(put.statusCode).toBe(200);
    const address = unique('html');
    await registerAs(shop, { email: address });
    const received = await onlyMail(address);
    expect(received.subject).toBe('Tienda Inti: <b>tu cuenta</b>');

    const page = await browser.newPage();
    try {
      await page.setContent(`<!doctype html><html><head><title>mail</title></head><body>${received.html}</body></html>`);
      expect(await page.title()).toBe('mail');
      expect(await page.locator('script, img, b').count()).toBe(0);
      await expect.poll(() => page.locator('p').first().innerText()).toBe('Hola <script>document.title = "owned"</script> <img src=x onerror="document.title=1">');
      const link = page.locator('p a');
      expect(await link.getAttribute('href')).toMatch(/^https:\/\/api\.shop\.example\/account\/activate\?token=qhl_/);
      expect(await link.innerText()).toBe(await link.getAttribute('href'));
    } finally {
      await page.close();
    }
  });
});
