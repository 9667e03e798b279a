import { startMailbox, type Mailbox, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, createCustomer, creditApp, CREDIT, grant, type Caller } from './helpers.js';

/**
 * The balance notices in the customer's locale (decision 0098): a store selling in es-PE (its
 * default) and en writes its own texts; a real SMTP server on 127.0.0.1 receives the notices.
 */
let t: TestApp;
let mail: Mailbox;
beforeAll(async () => {
  mail = await startMailbox();
  t = await creditApp({ workers: true, env: { SMTP_URL: mail.url } });
});
afterAll(async () => {
  await t?.close();
  await mail?.close();
});

async function limaStore(name: string): Promise<{ tenant: TestTenant; admin: Caller }> {
  const tenant = await t.createTenant({ name, currency: 'PEN' });
  const admin = caller(t, tenant);
  const res = await admin('PUT', '/api/v1/locales', { default_locale: 'es-PE', locales: ['en'] });
  if (res.statusCode !== 200) throw new Error(`locales not set: ${res.body}`);
  return { tenant, admin };
}

const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2)}@example.com`;

/** The next message to `address` whose subject `match` takes. */
const mailTo = async (address: string, match: (subject: string) => boolean = () => true) => {
  const got = await mail.next((m) => m.to.includes(address) && match(plain(m.subject)));
  return { subject: plain(got.subject), text: plain(got.text), html: got.html };
};
/** Amounts are written with a no-break space (PEN 10.00); compared here with a plain one. */
const plain = (s: string) => s.replace(/\u00a0/g, ' ');

describe('the balance notices', () => {
  it('are declared with their variables and written in the customer’s locale, else the store’s default, else built in', async () => {
    const { tenant, admin } = await limaStore('Tienda Inti');
    const other = await limaStore('Otra Tienda');
    const listed = (await admin('GET', '/api/v1/mail-texts')).json().data as Array<{ key: string; plugin: string; variables: Record<string, string> }>;
    const mine = listed.filter((m) => m.plugin === 'store-credit');
    expect(mine.map((m) => m.key)).toEqual(['store-credit.deduct', 'store-credit.grant', 'store-credit.restore', 'store-credit.spend']);
    expect(Object.keys(mine[1].variables).sort()).toEqual(['amount', 'balance', 'first_name', 'reason', 'store']);

    const rosa = await createCustomer(t, tenant, unique('rosa'));
    const mary = await createCustomer(t, tenant, unique('mary'));
    expect((await admin('PATCH', `/api/v1/customers/${mary.id}`, { locale: 'en' })).json().data.locale).toBe('en');

    // Nothing written: the built-in English notice, for both.
    await grant(admin, mary.id, 1000, 'PEN', 'Welcome');
    const builtIn = await mailTo(mary.email);
    expect(builtIn.subject).toBe('Tienda Inti: store credit was added to your account (balance PEN 10.00)');
    expect(builtIn.text).toContain('Hello Rosa,');

    // The store's Spanish text (its default): both read it while there is no English one.
    expect((await admin('PUT', '/api/v1/mail-texts/store-credit.grant/es-PE', { subject: '{{store}}: te abonamos {{amount}}', text: 'Hola {{first_name}}:\n\nMotivo: {{reason}}\nSaldo: {{balance}}' })).statusCode).toBe(200);
    const bad = await admin('PUT', '/api/v1/mail-texts/store-credit.grant/en', { subject: '{{store}}', text: '{{order_number}}' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error.code).toBe('MAIL_VARIABLE_UNKNOWN');
    const notListed = await admin('PUT', '/api/v1/mail-texts/store-credit.grant/pt-BR', { subject: 'x', text: 'y' });
    expect(notListed.json().error.code).toBe('LOCALE_NOT_LISTED');
    // The other store's English text is never this store's.
    expect((await other.admin('PUT', '/api/v1/mail-texts/store-credit.grant/en', { subject: 'OTHER {{store}}', text: 'other' })).statusCode).toBe(200);

    await grant(admin, rosa.id, 2500, 'PEN', 'Pedido dañado');
    const toRosa = await mailTo(rosa.email);
    expect(toRosa.subject).toBe('Tienda Inti: te abonamos PEN 25.00');
    expect(toRosa.text.trim()).toBe('Hola Rosa:\n\nMotivo: Pedido dañado\nSaldo: PEN 25.00');
    expect(toRosa.html).toContain('<p>Motivo: Pedido dañado<br>');
    await grant(admin, mary.id, 500, 'PEN', 'Late delivery');
    expect((await mailTo(mary.email, (s) => s.includes('te abonamos'))).subject).toBe('Tienda Inti: te abonamos PEN 5.00');

    // The English text: Mary gets it, Rosa keeps the Spanish one.
    expect((await admin('PUT', '/api/v1/mail-texts/store-credit.grant/en', { subject: '{{store}}: {{amount}} added', text: 'Hi {{first_name}}, your balance is {{balance}} ({{reason}}).' })).statusCode).toBe(200);
    await grant(admin, mary.id, 300, 'PEN', 'Sorry <script>alert(1)</script>');
    const english = await mailTo(mary.email, (s) => s.endsWith('added'));
    expect(english.subject).toBe('Tienda Inti: PEN 3.00 added');
    expect(english.text.trim()).toBe('Hi Rosa, your balance is PEN 18.00 (Sorry <script>alert(1)</script>).');
    expect(english.html).toContain('(Sorry &lt;script&gt;alert(1)&lt;/script&gt;)');
    await grant(admin, rosa.id, 100, 'PEN', 'Otra vez');
    expect((await mailTo(rosa.email, (s) => s.includes('PEN 1.00'))).subject).toBe('Tienda Inti: te abonamos PEN 1.00');

    // A deduction has no text: built in.
    const taken = await admin('POST', `${CREDIT}/customers/${mary.id}/entries`, { kind: 'deduct', currency: 'PEN', amount: 200, reason: 'Correction' });
    expect(taken.statusCode).toBe(201);
    expect((await mailTo(mary.email, (s) => s.includes('taken'))).subject).toBe('Tienda Inti: store credit was taken from your account (balance PEN 16.00)');
  });
});
