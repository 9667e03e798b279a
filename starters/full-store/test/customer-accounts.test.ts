import { createTestApp, startMailbox, type Mailbox, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { caller, createOrder } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import project from '../qhatu.config.js';

/**
 * A customer the store created, with an order, signs up in the full store: the registration gives
 * the caller nothing, the e-mail (received by a real SMTP server) carries the link, and the link
 * makes an account of that same customer, orders included.
 */
let mailbox: Mailbox;
let t: TestApp;
let shop: TestTenant;
beforeAll(async () => {
  mailbox = await startMailbox();
  t = await createTestApp({ plugins: project.plugins, env: { SMTP_URL: mailbox.url } });
  shop = await t.createTenant({ currency: 'PEN' });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await mailbox?.close();
});

/** The account-link token of the one e-mail sent to `address`. */
function tokenSentTo(address: string): string {
  const mails = mailbox.to(address);
  expect(mails).toHaveLength(1);
  const { text } = mails[0];
  const token = /[?&]token=(qhl_[A-Za-z0-9_-]{43})/.exec(text)?.[1];
  expect(token).toBeDefined();
  return token!;
}

describe('a store-created customer signs up', () => {
  it('keeps its id, addresses and orders, and only the mailbox could finish it', async () => {
    const admin = caller(t, shop);
    const storefront = caller(t, shop, shop.storefrontToken);
    const created = (await admin('POST', '/api/v1/customers', { email: 'rosa@example.com', first_name: 'Rosa', phone: '+51999888777' })).json().data;
    await admin('POST', `/api/v1/customers/${created.id}/addresses`, { address1: 'Av. Sol 123', city: 'Cusco', country_code: 'PE' });
    const order = await createOrder(admin); // for rosa@example.com
    expect((await admin('GET', `/api/v1/orders/${order.id}`)).json().data.customer_id).toBe(created.id);

    const registered = await storefront('POST', '/api/v1/auth/customer/register', { email: 'rosa@example.com', password: 'chosen by a stranger' });
    expect(registered.statusCode).toBe(202);
    expect(registered.json()).toEqual({ data: { status: 'verification_sent', email: 'rosa@example.com' } });
    const unknown = await storefront('POST', '/api/v1/auth/customer/register', { email: 'nadie@example.com', password: 'chosen by a stranger' });
    expect(unknown.statusCode).toBe(registered.statusCode);
    expect(unknown.json()).toEqual({ data: { status: 'verification_sent', email: 'nadie@example.com' } });

    const activated = await storefront('POST', '/api/v1/auth/customer/activate', { token: tokenSentTo('rosa@example.com'), password: 'my own password' });
    expect(activated.statusCode).toBe(200);
    const { token, customer } = activated.json().data;
    expect(customer).toMatchObject({ id: created.id, phone: '+51999888777', has_account: true });

    const orders = await t.request({
      method: 'POST',
      url: '/graphql',
      headers: shop.headers(token),
      payload: { query: '{ orders { edges { node { id total } } } }' },
    });
    expect(orders.json().data.orders.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([order.id]);
    const addresses = await caller(t, shop, token)('GET', `/api/v1/customers/${created.id}/addresses`);
    expect(addresses.json().data.map((a: { city: string }) => a.city)).toEqual(['Cusco']);
    expect((await storefront('POST', '/api/v1/auth/customer/login', { email: 'rosa@example.com', password: 'chosen by a stranger' })).statusCode).toBe(401);
  });
});
