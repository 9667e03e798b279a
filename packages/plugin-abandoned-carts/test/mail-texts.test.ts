import { startMailbox, type Mailbox, type TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbandonedCarts } from '../src/index.js';
import { abandonedApp, HOUR, LIST, listAll, MINUTE, shop, TestClock, type Shop } from './helpers.js';

/**
 * The reminder in the shopper's locale (decision 0098): a store selling in es-PE (its default) and
 * en writes its own texts; a real SMTP server on 127.0.0.1 receives the reminders.
 */
const clock = new TestClock();
let t: TestApp;
let mailbox: Mailbox;
beforeAll(async () => {
  mailbox = await startMailbox();
  t = await abandonedApp({ clock, env: { SMTP_URL: mailbox.url } });
});
afterAll(async () => {
  await t?.close();
  await mailbox?.close();
});

const REMINDER = 'abandoned-carts.reminder';

async function limaShop(price: number): Promise<Shop> {
  const s = await shop(t, price);
  const res = await s.admin('PUT', '/api/v1/locales', { default_locale: 'es-PE', locales: ['en'] });
  if (res.statusCode !== 200) throw new Error(`locales not set: ${res.body}`);
  return s;
}

/** An abandoned cart of `email` (and of the customer, when there is one); its record's id. */
async function abandoned(s: Shop, email: string, customerId: string | null): Promise<string> {
  const cart = await s.admin('POST', '/api/v1/checkout/carts', customerId ? { customer_id: customerId } : {});
  const id = cart.json().data.id;
  expect((await s.admin('POST', `/api/v1/checkout/carts/${id}/items`, { variant_id: s.variantId, quantity: 2 })).statusCode).toBe(201);
  expect((await s.admin('POST', '/api/v1/checkout/checkouts', { cart_id: id, email, ...(customerId ? { customer_id: customerId } : {}) })).statusCode).toBe(201);
  return id;
}

async function remind(s: Shop, cartId: string, to: string) {
  const record = (await listAll(s, '?status=all&limit=100')).data.find((r) => r.cart_id === cartId)!;
  const before = mailbox.to(to).length;
  const res = await s.admin('POST', `${LIST}/${record.id}/send-reminder`);
  expect(res.statusCode, res.body).toBe(200);
  await expect.poll(() => mailbox.to(to).length).toBe(before + 1);
  return mailbox.to(to)[before];
}

describe('the reminder in the shopper’s locale', () => {
  it('is the store’s text in the customer’s locale, else in its default, else the built-in one', async () => {
    const s = await limaShop(1250);
    const other = await limaShop(1250);
    const ana = (await s.admin('POST', '/api/v1/customers', { email: 'ana@example.com', locale: 'en' })).json().data;
    const luis = (await s.admin('POST', '/api/v1/customers', { email: 'luis@example.com' })).json().data;
    expect(ana.locale).toBe('en');

    const listed = (await s.admin('GET', `/api/v1/mail-texts/${REMINDER}`)).json().data;
    expect(Object.keys(listed.variables).sort()).toEqual(['expires_at', 'item_count', 'link', 'store', 'value']);

    expect((await s.admin('PUT', `/api/v1/mail-texts/${REMINDER}/es-PE`, { subject: 'Dejaste {{item_count}} productos', text: 'Hola:\n\nTu carrito de {{value}} te espera:\n{{link}}' })).statusCode).toBe(200);
    const unknown = await s.admin('PUT', `/api/v1/mail-texts/${REMINDER}/en`, { subject: 'Hi {{name}}', text: '{{link}}' });
    expect(unknown.json().error.code).toBe('MAIL_VARIABLE_UNKNOWN');
    // The other store writes an English text: it is never this store's.
    expect((await other.admin('PUT', `/api/v1/mail-texts/${REMINDER}/en`, { subject: 'OTHER STORE {{store}}', text: '{{link}}' })).statusCode).toBe(200);

    const anaCart = await abandoned(s, 'ana@example.com', ana.id);
    const luisCart = await abandoned(s, 'luis@example.com', luis.id);
    const guestCart = await abandoned(s, 'guest@example.com', null);
    clock.advance(61 * MINUTE);
    await t.app.container.resolve(AbandonedCarts).sweep(s.tenant.id);

    // Ana reads English: without an English text, the store's text in its default locale (its own wording of the mail).
    const toAna = await remind(s, anaCart, 'ana@example.com');
    expect(toAna.subject).toBe('Dejaste 2 productos');
    const toLuis = await remind(s, luisCart, 'luis@example.com');
    expect(toLuis.subject).toBe('Dejaste 2 productos');
    expect(toLuis.text).toMatch(/^Hola:\n\nTu carrito de \$25\.00 te espera:\nhttps?:\/\/\S+\/api\/v1\/abandoned-carts\/restore\?token=\S+$/);
    expect(toLuis.html).toContain('<a href="http');
    const toGuest = await remind(s, guestCart, 'guest@example.com');
    expect(toGuest.subject).toBe('Dejaste 2 productos');

    // The store's English text: Ana gets it; the others keep the Spanish one.
    expect((await s.admin('PUT', `/api/v1/mail-texts/${REMINDER}/en`, { subject: 'You left {{item_count}} items at {{store}}', text: 'Hello,\n\n{{value}} waits for you:\n{{link}}' })).statusCode).toBe(200);
    clock.advance(HOUR + MINUTE);
    const again = await remind(s, anaCart, 'ana@example.com');
    expect(again.subject).toMatch(/^You left 2 items at /);
    expect(again.subject).not.toContain('OTHER STORE');
    expect(again.text).toMatch(/^Hello,\n\n\$25\.00 waits for you:\nhttp/);
    expect((await remind(s, luisCart, 'luis@example.com')).subject).toBe('Dejaste 2 productos');
  });

  it('is the built-in English one for a customer in a locale without a text, when the default has none either', async () => {
    const s = await limaShop(990);
    const rosa = (await s.admin('POST', '/api/v1/customers', { email: 'rosa@example.com', locale: 'en' })).json().data;
    const cart = await abandoned(s, 'rosa@example.com', rosa.id);
    clock.advance(61 * MINUTE);
    await t.app.container.resolve(AbandonedCarts).sweep(s.tenant.id);
    const got = await remind(s, cart, 'rosa@example.com');
    expect(got.subject).toMatch(/: you left 2 items in your cart$/);
    expect(got.text).toContain('($19.80) in your cart at');
    expect(got.html).toContain('Return to your cart</a>');
  });
});
