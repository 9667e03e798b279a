import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../src/db/database.js';
import { MailTexts } from '../src/mail/texts.js';
import { ADMIN } from '../src/http/route-config.js';
import { definePlugin } from '../src/plugin.js';
import { createTestApp, type TestApp, type TestTenant } from '../src/testing/index.js';

/**
 * A store's own texts of its e-mails per locale (decision 0098), on a plugin of this test that
 * declares one mail and answers what `MailTexts.compose` makes of it for a recipient's locale.
 */
const greeter = definePlugin({
  name: 'greeter',
  mails: [{ key: 'greeter.welcome', description: 'Welcomes a new customer', variables: { name: 'The customer’s first name', store: 'The store’s name', link: 'Where to sign in' } }],
  routes: async (app, { container }) => {
    app.post('/greeter/compose', { config: { auth: ADMIN, permission: 'store.read' } }, async (req) => {
      const { locale, name } = req.body as { locale: string | null; name: string };
      const db = container.resolve(Database);
      const mails = container.resolve(MailTexts);
      return db.read((sql) => mails.compose(sql, 'greeter.welcome', locale, { name, store: 'Tienda', link: 'https://shop.example/sign-in' }, { subject: `Welcome, ${name}`, text: `Hello ${name}, welcome.` }));
    });
  },
});

let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  t = await createTestApp({ plugins: [greeter] });
  shop = await t.createTenant({ name: 'Tienda', currency: 'PEN' });
  other = await t.createTenant({ name: 'Other' });
  expect((await t.request({ method: 'PUT', url: '/api/v1/locales', headers: shop.headers(), payload: { default_locale: 'es-PE', locales: ['en'] } })).statusCode).toBe(200);
});
afterAll(async () => t?.close());

const put = (tenant: TestTenant, locale: string, payload: unknown, token?: string) =>
  t.request({ method: 'PUT', url: `/api/v1/mail-texts/greeter.welcome/${locale}`, headers: tenant.headers(token), payload: payload as never });
const compose = async (tenant: TestTenant, locale: string | null, name = 'Ana') => {
  const res = await t.request({ method: 'POST', url: '/api/v1/greeter/compose', headers: tenant.headers(), payload: { locale, name } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

describe('/api/v1/mail-texts', () => {
  it('lists the mails the plugins declare, with their variables and no text of the store yet', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/mail-texts', headers: shop.headers() });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual([{ key: 'greeter.welcome', plugin: 'greeter', description: 'Welcomes a new customer', variables: expect.objectContaining({ name: expect.any(String), link: expect.any(String) }), texts: [] }]);
    // Without a text, the plugin's built-in message.
    expect(await compose(shop, 'en')).toEqual({ subject: 'Welcome, Ana', text: 'Hello Ana, welcome.', locale: null });
  });

  it('composes the recipient’s locale, else the default locale’s text, placeholders filled', async () => {
    const es = await put(shop, 'es-pe', { subject: 'Bienvenida, {{name}}', text: 'Hola {{ name }},\n\nbienvenida a {{store}}.\nEntra en {{link}}' });
    expect(es.statusCode, es.body).toBe(200);
    expect(es.json().data).toMatchObject({ locale: 'es-PE', subject: 'Bienvenida, {{name}}' });
    const spanish = await compose(shop, 'es-PE');
    expect(spanish).toMatchObject({ locale: 'es-PE', subject: 'Bienvenida, Ana', text: 'Hola Ana,\n\nbienvenida a Tienda.\nEntra en https://shop.example/sign-in' });
    expect(spanish.html).toBe('<p>Hola Ana,</p>\n<p>bienvenida a Tienda.<br>\nEntra en <a href="https://shop.example/sign-in">https://shop.example/sign-in</a></p>');
    // English has no text of its own: the default locale's.
    expect((await compose(shop, 'en')).locale).toBe('es-PE');
    expect((await put(shop, 'en', { subject: 'Welcome to {{store}}', text: 'Hi {{name}}' })).statusCode).toBe(200);
    expect(await compose(shop, 'en', '<b>Bo</b>')).toMatchObject({ locale: 'en', subject: 'Welcome to Tienda', text: 'Hi <b>Bo</b>', html: '<p>Hi &lt;b&gt;Bo&lt;/b&gt;</p>' });
    expect((await compose(shop, null)).locale).toBe('es-PE');
    // Another store has none of them.
    expect((await compose(other, 'en')).locale).toBeNull();
    const one = await t.request({ method: 'GET', url: '/api/v1/mail-texts/greeter.welcome', headers: shop.headers() });
    expect(one.json().data.texts.map((x: { locale: string }) => x.locale)).toEqual(['en', 'es-PE']);
    expect((await t.request({ method: 'GET', url: '/api/v1/mail-texts/greeter.welcome', headers: other.headers() })).json().data.texts).toEqual([]);
  });

  it('refuses unknown variables, unlisted locales, unknown mails and storefront keys, writing nothing', async () => {
    const unknown = await put(shop, 'en', { subject: 'Hi {{name}}', text: 'Your code {{code}} and {{ total }}' });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error).toMatchObject({ code: 'MAIL_VARIABLE_UNKNOWN', details: [expect.objectContaining({ unknown: ['code', 'total'] })] });
    const unlisted = await put(shop, 'pt-BR', { subject: 'Olá', text: 'Olá' });
    expect(unlisted.statusCode).toBe(422);
    expect(unlisted.json().error.code).toBe('LOCALE_NOT_LISTED');
    expect((await t.request({ method: 'PUT', url: '/api/v1/mail-texts/greeter.farewell/en', headers: shop.headers(), payload: { subject: 'a', text: 'b' } })).statusCode).toBe(404);
    expect((await put(shop, 'en', { subject: '', text: 'b' })).statusCode).toBe(400);
    expect((await put(shop, 'en', { subject: 'x', text: 'y' }, shop.storefrontToken)).statusCode).toBe(403);
    expect((await compose(shop, 'en')).subject).toBe('Welcome to Tienda');
  });

  it('removes a locale’s text: the default locale’s is composed again', async () => {
    expect((await t.request({ method: 'DELETE', url: '/api/v1/mail-texts/greeter.welcome/en', headers: shop.headers() })).statusCode).toBe(204);
    expect((await t.request({ method: 'DELETE', url: '/api/v1/mail-texts/greeter.welcome/en', headers: shop.headers() })).statusCode).toBe(404);
    expect((await compose(shop, 'en')).locale).toBe('es-PE');
  });

  it('refuses a plugin whose mail is not named after it', () => {
    expect(() => definePlugin({ name: 'bad', mails: [{ key: 'other.mail', description: 'x', variables: {} }] })).toThrow(/must be named "bad.<mail>"/);
    expect(() => definePlugin({ name: 'bad', mails: [{ key: 'bad.mail', description: 'x', variables: { 'Not Ok': 'x' } }] })).toThrow(/Variable "Not Ok"/);
  });
});
