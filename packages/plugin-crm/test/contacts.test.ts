import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { crmApp, crmCaller, fails, ok, staffMember } from './helpers.js';

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
let call: ReturnType<typeof crmCaller>;

beforeAll(async () => {
  t = await crmApp();
  a = await t.createTenant();
  b = await t.createTenant();
  call = crmCaller(t, a);
});
afterAll(() => t?.close());

describe('accounts', () => {
  it('creates, reads, lists, changes and deletes accounts', async () => {
    const member = await staffMember(t, a);
    const acme = await ok(crmCaller(t, a, member.token)('POST', '/accounts', { name: 'Acme Perú', domain: 'ACME.pe', industry: 'Retail', phone: '+51 1 555 0000', website: 'https://acme.pe', tags: ['key'], metadata: { tier: 1 } }), 201);
    expect(acme).toMatchObject({ name: 'Acme Perú', domain: 'acme.pe', industry: 'Retail', phone: '+51 1 555 0000', website: 'https://acme.pe', owner_id: member.id, tags: ['key'], metadata: { tier: 1 } });
    expect(await ok(call('GET', `/accounts/${acme.id}`))).toEqual(acme);
    const beta = await ok(call('POST', '/accounts', { name: 'Beta' }), 201);
    expect(beta.owner_id).toBeNull();
    expect((await call('GET', '/accounts?sort=name')).json().data.map((x: { name: string }) => x.name)).toEqual(['Acme Perú', 'Beta']);
    expect((await call('GET', '/accounts')).json().data.map((x: { name: string }) => x.name)).toEqual(['Beta', 'Acme Perú']);
    expect((await call('GET', `/accounts?filter[owner_id]=${member.id}`)).json().data.map((x: { id: string }) => x.id)).toEqual([acme.id]);
    const page = (await call('GET', '/accounts?limit=1')).json();
    expect(page.meta.pagination).toMatchObject({ has_next: true, limit: 1 });
    expect((await call('GET', `/accounts?limit=1&cursor=${page.meta.pagination.cursor}`)).json().data[0].id).toBe(acme.id);
    expect(await ok(call('PATCH', `/accounts/${beta.id}`, { name: 'Beta SAC', website: null }))).toMatchObject({ name: 'Beta SAC', website: null });
    for (const body of [{}, { name: '' }, { name: 'x', website: 'ftp://x' }, { name: 'x', domain: 'not a domain' }, { name: 'x', owner_id: 'me' }]) {
      await fails(call('POST', '/accounts', body), 400, 'VALIDATION_ERROR');
    }
    await fails(call('POST', '/accounts', { name: 'x', owner_id: (await staffMember(t, b)).id }), 422, 'STAFF_NOT_FOUND');
    await fails(call('GET', '/accounts?sort=domain'), 400, 'VALIDATION_ERROR');
    expect((await call('DELETE', `/accounts/${beta.id}`)).statusCode).toBe(204);
    await fails(call('GET', `/accounts/${beta.id}`), 404, 'ACCOUNT_NOT_FOUND');
  });
});

describe('contacts', () => {
  it('belong to an account of the store; deleting the account keeps them, without it', async () => {
    const account = await ok(call('POST', '/accounts', { name: 'Holding' }), 201);
    const contact = await ok(call('POST', '/contacts', { account_id: account.id, first_name: 'Julia', last_name: 'Tupac', email: 'JULIA@holding.pe', phone: '+51 1 222 3333', job_title: 'CFO', tags: ['board'], metadata: { vip: true } }), 201);
    expect(contact).toMatchObject({ account_id: account.id, owner_id: null, lead_id: null, first_name: 'Julia', last_name: 'Tupac', email: 'julia@holding.pe', job_title: 'CFO', tags: ['board'], metadata: { vip: true }, last_activity_at: null });
    expect(await ok(call('GET', `/contacts/${contact.id}`))).toEqual(contact);
    const loose = await ok(call('POST', '/contacts', { last_name: 'Loose' }), 201);
    expect((await call('GET', `/contacts?filter[account_id]=${account.id}`)).json().data.map((x: { id: string }) => x.id)).toEqual([contact.id]);
    expect((await call('GET', '/contacts?sort=last_name')).json().data.map((x: { last_name: string }) => x.last_name)).toEqual(['Loose', 'Tupac']);
    expect((await call('GET', '/contacts?sort=-last_name')).json().data.map((x: { last_name: string }) => x.last_name)).toEqual(['Tupac', 'Loose']);

    const theirAccount = await ok(crmCaller(t, b)('POST', '/accounts', { name: 'Theirs' }), 201);
    const refused = await fails(call('POST', '/contacts', { last_name: 'x', account_id: theirAccount.id }), 422, 'ACCOUNT_NOT_FOUND');
    expect(refused.details[0].path).toBe('body.account_id');
    await fails(call('PATCH', `/contacts/${loose.id}`, { account_id: theirAccount.id }), 422, 'ACCOUNT_NOT_FOUND');
    expect(await ok(call('PATCH', `/contacts/${loose.id}`, { account_id: account.id, email: null }))).toMatchObject({ account_id: account.id, email: null });
    expect(await ok(call('PATCH', `/contacts/${loose.id}`, { account_id: null }))).toMatchObject({ account_id: null });
    for (const body of [{}, { last_name: 'x', email: 'no' }, { last_name: 'x', account_id: 'x' }, { last_name: 'x', lead_id: account.id }]) {
      await fails(call('POST', '/contacts', body), 400, 'VALIDATION_ERROR');
    }

    const deal = await ok(call('POST', '/deals', { title: 'Holding deal', contact_id: contact.id, account_id: account.id }), 201);
    expect((await call('DELETE', `/accounts/${account.id}`)).statusCode).toBe(204);
    expect((await ok(call('GET', `/contacts/${contact.id}`))).account_id).toBeNull();
    expect((await ok(call('GET', `/deals/${deal.id}`))).account_id).toBeNull();
    expect((await call('DELETE', `/contacts/${contact.id}`)).statusCode).toBe(204);
    expect((await ok(call('GET', `/deals/${deal.id}`))).contact_id).toBeNull();
    await fails(call('GET', `/contacts/${contact.id}`), 404, 'CONTACT_NOT_FOUND');
    await fails(call('GET', `/contacts/${contact.id}/activities`), 404, 'CONTACT_NOT_FOUND');
  });

  it("never shows or changes another store's contacts and accounts", async () => {
    const theirs = crmCaller(t, b);
    const contact = await ok(theirs('POST', '/contacts', { last_name: 'Theirs' }), 201);
    const account = await ok(theirs('POST', '/accounts', { name: 'Theirs' }), 201);
    for (const [method, path] of [['GET', `/contacts/${contact.id}`], ['PATCH', `/contacts/${contact.id}`], ['DELETE', `/contacts/${contact.id}`], ['GET', `/contacts/${contact.id}/activities`]] as const) {
      await fails(call(method, path, method === 'PATCH' ? { last_name: 'x' } : undefined), 404, 'CONTACT_NOT_FOUND');
    }
    for (const [method, path] of [['GET', `/accounts/${account.id}`], ['PATCH', `/accounts/${account.id}`], ['DELETE', `/accounts/${account.id}`]] as const) {
      await fails(call(method, path, method === 'PATCH' ? { name: 'x' } : undefined), 404, 'ACCOUNT_NOT_FOUND');
    }
    expect((await call('GET', '/contacts?limit=100')).json().data.map((x: { id: string }) => x.id)).not.toContain(contact.id);
    expect((await call('GET', '/accounts?limit=100')).json().data.map((x: { id: string }) => x.id)).not.toContain(account.id);
    expect((await call('GET', `/contacts?filter[account_id]=${account.id}`)).json().data).toEqual([]);
  });
});
