import { startMailbox, type Mailbox, type TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fulfilledOrder, ok, product, requestReturn, returnsApp, shop, shopper, type Shop } from './helpers.js';

/**
 * A return's notices in the customer's locale (decision 0098): a store selling in es-PE (its
 * default) and en writes its own texts; a real SMTP server on 127.0.0.1 receives the notices.
 */
let t: TestApp;
let mail: Mailbox;
beforeAll(async () => {
  mail = await startMailbox();
  t = await returnsApp({ env: { SMTP_URL: mail.url } });
});
afterAll(async () => {
  await t?.close();
  await mail?.close();
});

async function limaShop(): Promise<Shop> {
  const s = await shop(t, true);
  await ok(await s.admin('PUT', '/api/v1/locales', { default_locale: 'es-PE', locales: ['en'] }), 200);
  return s;
}

describe('the notices of a return', () => {
  it('are declared with their variables and written in the customer’s locale', async () => {
    const s = await limaShop();
    const mails = (await ok(await s.admin('GET', '/api/v1/mail-texts'), 200)) as Array<{ key: string; plugin: string; variables: Record<string, string> }>;
    const mine = mails.filter((m) => m.plugin === 'returns');
    expect(mine.map((m) => m.key)).toEqual(['returns.approved', 'returns.cancelled', 'returns.received', 'returns.refunded', 'returns.rejected', 'returns.requested', 'returns.shipped']);
    expect(Object.keys(mine.find((m) => m.key === 'returns.rejected')!.variables).sort()).toEqual(['items', 'kind', 'order_number', 'reason', 'return_name', 'store']);

    await ok(await s.admin('PUT', '/api/v1/mail-texts/returns.requested/es-PE', { subject: 'Recibimos tu solicitud {{return_name}}', text: 'Hola:\n\nTu {{kind}} del pedido #{{order_number}}:\n{{items}}' }), 200);
    await ok(await s.admin('PUT', '/api/v1/mail-texts/returns.rejected/es-PE', { subject: '{{return_name}} no fue aprobada', text: 'Motivo: {{reason}}' }), 200);
    const unknown = await s.admin('PUT', '/api/v1/mail-texts/returns.rejected/en', { subject: '{{return_name}}', text: '{{tracking}}' });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error.code).toBe('MAIL_VARIABLE_UNKNOWN');
    expect((await s.admin('PUT', '/api/v1/mail-texts/returns.rejected/de', { subject: 'x', text: 'y' })).json().error.code).toBe('LOCALE_NOT_LISTED');

    const maria = await shopper(t, s);
    const john = await shopper(t, s);
    await ok(await s.admin('PATCH', `/api/v1/customers/${john.id}`, { locale: 'en' }), 200);
    const a = await product(s, 2000, 10);
    const mariaOrder = await fulfilledOrder(t, s, { customer_id: maria.id, email: maria.email, line_items: [{ variant_id: a.variantId, quantity: 2 }] });
    const johnOrder = await fulfilledOrder(t, s, { customer_id: john.id, email: john.email, line_items: [{ variant_id: a.variantId, quantity: 1 }] });

    const mariaReturn = await requestReturn(maria.api, { order_id: mariaOrder.id, lines: [{ line_item_id: mariaOrder.line_items[0].id, quantity: 2 }] });
    const toMaria = await mail.next((m) => m.to.includes(maria.email) && m.subject.startsWith('Recibimos'));
    expect(toMaria.subject).toBe(`Recibimos tu solicitud ${mariaReturn.name}`);
    expect(toMaria.text).toMatch(new RegExp(`^Hola:\\n\\nTu return del pedido #${mariaOrder.number}:\\n- 2 × Poncho [^\\n]+$`));
    expect(toMaria.html).toContain(`<p>Tu return del pedido #${mariaOrder.number}:<br>`);

    // John reads English; the store has no English text yet: its default one.
    const johnReturn = await requestReturn(john.api, { order_id: johnOrder.id, lines: [{ line_item_id: johnOrder.line_items[0].id, quantity: 1 }] });
    expect((await mail.next((m) => m.to.includes(john.email) && m.subject.includes(johnReturn.name))).subject).toBe(`Recibimos tu solicitud ${johnReturn.name}`);

    // An English text of the rejection: John gets it, Maria the Spanish one; placeholders filled.
    await ok(await s.admin('PUT', '/api/v1/mail-texts/returns.rejected/en', { subject: '{{store}}: {{return_name}} was declined', text: 'Because: {{reason}}' }), 200);
    await ok(await s.admin('POST', `/api/v1/returns/${johnReturn.id}/reject`, { reason: 'Worn <b>items</b>' }), 200);
    const rejectedJohn = await mail.next((m) => m.to.includes(john.email) && m.subject.includes('declined'));
    expect(rejectedJohn.subject).toMatch(new RegExp(`: ${johnReturn.name} was declined$`));
    expect(rejectedJohn.text.trim()).toBe('Because: Worn <b>items</b>');
    expect(rejectedJohn.html).toContain('Because: Worn &lt;b&gt;items&lt;/b&gt;');
    await ok(await s.admin('POST', `/api/v1/returns/${mariaReturn.id}/reject`, { reason: 'Fuera de plazo' }), 200);
    const rejectedMaria = await mail.next((m) => m.to.includes(maria.email) && m.subject.includes('no fue aprobada'));
    expect(rejectedMaria.text.trim()).toBe('Motivo: Fuera de plazo');
  });

  it('are the built-in ones in a store that wrote none, whatever another store wrote', async () => {
    const s = await limaShop();
    const customer = await shopper(t, s);
    await ok(await s.admin('PATCH', `/api/v1/customers/${customer.id}`, { locale: 'en' }), 200);
    const a = await product(s, 1500, 5);
    const o = await fulfilledOrder(t, s, { customer_id: customer.id, email: customer.email, line_items: [{ variant_id: a.variantId, quantity: 1 }] });
    const asked = await requestReturn(customer.api, { order_id: o.id, lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] });
    const got = await mail.next((m) => m.to.includes(customer.email) && m.subject.includes(asked.name));
    expect(got.subject).toMatch(new RegExp(`: We received your return request ${asked.name}$`));
    expect(got.text).toContain(`for order #${o.number} is with`);
  });
});
