import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import payments from '@qhatu/plugin-payments';
import { caller, GATEWAYS, MISSING, ok, type Caller } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import offline from '../src/index.js';
import { addMethod, AVAILABLE, expectError, gql, METHODS, RECEIPTS, staffWith, switchOn } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let store: Caller;
beforeAll(async () => {
  t = await createTestApp({ plugins: [media, catalog, customers, inventory, orders, payments, offline] });
  shop = await t.createTenant({ currency: 'PEN' });
  other = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
});
afterAll(() => t?.close());

const events = (type: string, id: string) =>
  t.app.orm.em.getConnection().execute<Array<{ data: Record<string, unknown> }>>(`select data from core_outbox where type = ? and data->>'id' = ? order by occurred_at`, [type, id]);

describe('the offline gateway', () => {
  it('is listed with its payment fields and no credentials; switched on with an empty PUT', async () => {
    const [listed] = (await ok(await store('GET', GATEWAYS), 200)) as Array<Record<string, any>>;
    expect(listed).toMatchObject({ id: 'offline', name: 'Offline payments', configured: false, enabled: false, credential_fields: [], session: null });
    expect(listed.payment_fields.map((f: { name: string; required: boolean }) => [f.name, f.required])).toEqual([['method_id', true], ['payer_reference', false]]);
    expect(listed.currencies).toEqual(expect.arrayContaining(['PEN', 'USD', 'EUR', 'BRL']));
    await switchOn(admin);
    expect((await ok(await store('GET', GATEWAYS), 200))[0]).toMatchObject({ id: 'offline', configured: true, enabled: true });
  });

  it('answers no notification: every one is refused', async () => {
    const res = await t.request({ method: 'POST', url: `/webhooks/offline/${shop.id}`, headers: { 'content-type': 'application/json' }, payload: '{"id":"evt_1"}' });
    expectError(res, 401, 'INVALID_SIGNATURE');
  });
});

describe('methods', () => {
  it('are created, read, changed and deleted, each change published', async () => {
    const made = await ok(await admin('POST', METHODS, { name: 'Yape', kind: 'wallet', instructions: 'Yapea al 987 654 321 (Tienda Qhatu)', currencies: ['PEN'] }), 201);
    expect(made).toEqual({
      id: expect.any(String), name: 'Yape', kind: 'wallet', instructions: 'Yapea al 987 654 321 (Tienda Qhatu)', currencies: ['PEN'], enabled: true, position: 0,
      created_at: expect.any(String), updated_at: expect.any(String),
    });
    expect(await ok(await admin('GET', `${METHODS}/${made.id}`), 200)).toEqual(made);
    const changed = await ok(await admin('PATCH', `${METHODS}/${made.id}`, { instructions: 'Yapea al 912 345 678', currencies: ['PEN', 'USD'], position: 3 }), 200);
    expect(changed).toMatchObject({ name: 'Yape', instructions: 'Yapea al 912 345 678', currencies: ['PEN', 'USD'], position: 3 });
    expect(await ok(await admin('PATCH', `${METHODS}/${made.id}`, {}), 200)).toEqual(changed);
    expect((await events('payments.offline_method.created', made.id))[0].data).toMatchObject({ id: made.id, name: 'Yape', kind: 'wallet', currencies: ['PEN'], enabled: true });
    expect(await events('payments.offline_method.updated', made.id)).toHaveLength(1);

    const gone = await admin('DELETE', `${METHODS}/${made.id}`);
    expect(gone.statusCode).toBe(204);
    expect(await events('payments.offline_method.deleted', made.id)).toHaveLength(1);
    expectError(await admin('GET', `${METHODS}/${made.id}`), 404, 'OFFLINE_METHOD_NOT_FOUND');
    expectError(await admin('DELETE', `${METHODS}/${made.id}`), 404, 'OFFLINE_METHOD_NOT_FOUND');
  });

  it('a name the store uses, whatever its case, is a 409; another store may use it', async () => {
    const first = await addMethod(admin, { name: 'Plin' });
    expect(expectError(await admin('POST', METHODS, { name: 'PLIN', kind: 'wallet', currencies: ['PEN'] }), 409, 'OFFLINE_METHOD_EXISTS').details[0]).toMatchObject({ path: 'body.name' });
    const second = await addMethod(admin, { name: 'Plin 2' });
    expectError(await admin('PATCH', `${METHODS}/${second.id}`, { name: 'plin' }), 409, 'OFFLINE_METHOD_EXISTS');
    expect((await addMethod(caller(t, other), { name: 'Plin' })).name).toBe('Plin');
    const names = await Promise.all(Array.from({ length: 5 }, () => admin('POST', METHODS, { name: 'Tunki', kind: 'wallet', currencies: ['PEN'] })));
    expect(names.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409]);
    expect(first.name).toBe('Plin');
  });

  it('refuses bad input with the failing fields', async () => {
    const base = { name: 'Depósito', kind: 'bank_transfer', currencies: ['PEN'] };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, name: '' }, 'body.name'],
      [{ ...base, name: 'x'.repeat(101) }, 'body.name'],
      [{ ...base, kind: 'cheque' }, 'body.kind'],
      [{ ...base, currencies: [] }, 'body.currencies'],
      [{ ...base, currencies: ['PEN', 'PEN'] }, 'body.currencies'],
      [{ ...base, currencies: ['ZZQ'] }, 'body.currencies.0'],
      [{ ...base, currencies: ['pen'] }, 'body.currencies.0'],
      [{ ...base, instructions: 'x'.repeat(2001) }, 'body.instructions'],
      [{ ...base, position: -1 }, 'body.position'],
      [{ ...base, enabled: 'yes' }, 'body.enabled'],
      [{ name: 'Sin tipo', currencies: ['PEN'] }, 'body.kind'],
    ];
    for (const [body, path] of cases) {
      const error = expectError(await admin('POST', METHODS, body), 400, 'VALIDATION_ERROR');
      expect(error.details.map((d) => d.path), JSON.stringify(body)).toContain(path);
    }
    expectError(await admin('POST', METHODS, { ...base, fee: 100 }), 400, 'VALIDATION_ERROR');
    expectError(await admin('PATCH', `${METHODS}/${MISSING}`, { kind: 'cheque' }), 400, 'VALIDATION_ERROR');
    expectError(await admin('GET', `${METHODS}/not-a-uuid`), 400, 'VALIDATION_ERROR');
    expectError(await admin('GET', `${METHODS}?sort=fee`), 400, 'VALIDATION_ERROR');
    expectError(await admin('GET', `${METHODS}?filter[kind]=cheque`), 400, 'VALIDATION_ERROR');
  });

  it('are listed in pages that hold under inserts, sorted and filtered', async () => {
    const api = caller(t, await t.createTenant({ currency: 'PEN' }));
    const made = [];
    for (const [i, name] of ['Efectivo', 'BBVA', 'Interbank', 'Yape', 'Wise'].entries()) {
      made.push(await addMethod(api, { name, position: 10 - i, kind: i === 0 ? 'cash_on_delivery' : i === 3 ? 'wallet' : 'bank_transfer', currencies: name === 'Wise' ? ['USD', 'EUR'] : ['PEN'], enabled: name !== 'Interbank' }));
    }
    const first = await api('GET', `${METHODS}?limit=2`);
    expect(first.json().data.map((m: { name: string }) => m.name)).toEqual(['Wise', 'Yape']);
    expect(first.json().meta.pagination).toMatchObject({ has_next: true, limit: 2, cursor: expect.any(String) });
    await addMethod(api, { name: 'Agente BCP', position: 0 });
    const second = await api('GET', `${METHODS}?limit=2&cursor=${first.json().meta.pagination.cursor}`);
    expect(second.json().data.map((m: { name: string }) => m.name)).toEqual(['Interbank', 'BBVA']);
    const third = await api('GET', `${METHODS}?limit=2&cursor=${second.json().meta.pagination.cursor}`);
    expect(third.json().data.map((m: { name: string }) => m.name)).toEqual(['Efectivo']);
    expect(third.json().meta.pagination).toMatchObject({ has_next: false, cursor: null });

    const byName = await ok(await api('GET', `${METHODS}?sort=name&limit=100`), 200);
    expect(byName.map((m: { name: string }) => m.name)).toEqual(['Agente BCP', 'BBVA', 'Efectivo', 'Interbank', 'Wise', 'Yape']);
    const newest = await ok(await api('GET', `${METHODS}?sort=-created_at&limit=1`), 200);
    expect(newest[0].name).toBe('Agente BCP');
    expect((await ok(await api('GET', `${METHODS}?filter[enabled]=false`), 200)).map((m: { name: string }) => m.name)).toEqual(['Interbank']);
    expect((await ok(await api('GET', `${METHODS}?filter[kind]=wallet`), 200)).map((m: { name: string }) => m.name)).toEqual(['Yape']);
    expect((await ok(await api('GET', `${METHODS}?filter[currency]=EUR`), 200)).map((m: { name: string }) => m.name)).toEqual(['Wise']);
    expectError(await api('GET', `${METHODS}?sort=name&cursor=${first.json().meta.pagination.cursor}`), 400, 'VALIDATION_ERROR');
    expect(made).toHaveLength(5);
  });

  it('the storefront sees the enabled methods that take the currency, in the store’s order, once the gateway is on', async () => {
    const tenant = await t.createTenant({ currency: 'PEN' });
    const api = caller(t, tenant);
    const shopper = caller(t, tenant, tenant.storefrontToken);
    await addMethod(api, { name: 'Transferencia', position: 2 });
    await addMethod(api, { name: 'Contra entrega', kind: 'cash_on_delivery', position: 1, currencies: ['PEN', 'USD'] });
    await addMethod(api, { name: 'Pausado', enabled: false });
    expect(await ok(await shopper('GET', `${AVAILABLE}?currency=PEN`), 200)).toEqual([]);
    await switchOn(api);
    const pen = await ok(await shopper('GET', `${AVAILABLE}?currency=PEN`), 200);
    expect(pen.map((m: { name: string; instructions: string }) => m.name)).toEqual(['Contra entrega', 'Transferencia']);
    expect(pen[1].instructions).toContain('BCP');
    expect((await ok(await shopper('GET', `${AVAILABLE}?currency=USD`), 200)).map((m: { name: string }) => m.name)).toEqual(['Contra entrega']);
    expect(await ok(await shopper('GET', `${AVAILABLE}?currency=EUR`), 200)).toEqual([]);
    expectError(await shopper('GET', AVAILABLE), 400, 'VALIDATION_ERROR');
    expectError(await shopper('GET', `${AVAILABLE}?currency=ZZQ`), 400, 'VALIDATION_ERROR');
    // A store that switches the gateway off offers nothing.
    await ok(await api('PUT', `${GATEWAYS}/offline`, { enabled: false }), 200);
    expect(await ok(await shopper('GET', `${AVAILABLE}?currency=PEN`), 200)).toEqual([]);
  });
});

describe('who may manage methods', () => {
  it('reading needs payments.read, changing payments.configure; the storefront gets neither', async () => {
    const method = await addMethod(admin, { name: 'Scotiabank' });
    const reader = caller(t, shop, await staffWith(t, shop, ['payments.read']));
    expect((await ok(await reader('GET', `${METHODS}/${method.id}`), 200)).name).toBe('Scotiabank');
    for (const res of [
      await reader('POST', METHODS, { name: 'Otro', kind: 'wallet', currencies: ['PEN'] }),
      await reader('PATCH', `${METHODS}/${method.id}`, { enabled: false }),
      await reader('DELETE', `${METHODS}/${method.id}`),
    ]) expect(expectError(res, 403, 'FORBIDDEN').details[0]).toMatchObject({ permission: 'payments.configure' });
    const capturer = caller(t, shop, await staffWith(t, shop, ['payments.capture']));
    expect(expectError(await capturer('GET', METHODS), 403, 'FORBIDDEN').details[0]).toMatchObject({ permission: 'payments.read' });
    expectError(await store('GET', METHODS), 403, 'FORBIDDEN');
    expectError(await store('POST', METHODS, { name: 'Otro', kind: 'wallet', currencies: ['PEN'] }), 403, 'FORBIDDEN');
    const configurer = caller(t, shop, await staffWith(t, shop, ['payments.configure']));
    expect((await ok(await configurer('PATCH', `${METHODS}/${method.id}`, { enabled: false }), 200)).enabled).toBe(false);
  });

  it("another store's method is not found", async () => {
    const method = await addMethod(admin, { name: 'Caja Arequipa' });
    const them = caller(t, other);
    expectError(await them('GET', `${METHODS}/${method.id}`), 404, 'OFFLINE_METHOD_NOT_FOUND');
    expectError(await them('PATCH', `${METHODS}/${method.id}`, { enabled: false }), 404, 'OFFLINE_METHOD_NOT_FOUND');
    expectError(await them('DELETE', `${METHODS}/${method.id}`), 404, 'OFFLINE_METHOD_NOT_FOUND');
    expect((await ok(await them('GET', `${METHODS}?limit=100`), 200)).map((m: { id: string }) => m.id)).not.toContain(method.id);
    expect((await ok(await admin('GET', `${METHODS}/${method.id}`), 200)).enabled).toBe(true);
  });
});

describe('GraphQL', () => {
  const METHODS_QUERY = `query($limit: Int, $cursor: String) { offlinePaymentMethods(limit: $limit, cursor: $cursor) { edges { node { id name kind currencies enabled } cursor } pageInfo { hasNextPage endCursor } } }`;

  it('lists the methods to payments.read, pages included; the storefront gets the available ones', async () => {
    const tenant = await t.createTenant({ currency: 'PEN' });
    const api = caller(t, tenant);
    await switchOn(api);
    await addMethod(api, { name: 'Contra entrega', kind: 'cash_on_delivery', position: 1 });
    await addMethod(api, { name: 'BCP', position: 2 });
    const first = (await gql(t, tenant, METHODS_QUERY, { limit: 1 })).json();
    expect(first.errors).toBeUndefined();
    expect(first.data.offlinePaymentMethods.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual(['Contra entrega']);
    expect(first.data.offlinePaymentMethods.pageInfo.hasNextPage).toBe(true);
    const next = (await gql(t, tenant, METHODS_QUERY, { limit: 1, cursor: first.data.offlinePaymentMethods.pageInfo.endCursor })).json();
    expect(next.data.offlinePaymentMethods.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual(['BCP']);

    const available = (await gql(t, tenant, `{ availableOfflinePaymentMethods(currency: "PEN") { name kind instructions } }`, {}, tenant.storefrontToken)).json();
    expect(available.data.availableOfflinePaymentMethods.map((m: { kind: string }) => m.kind)).toEqual(['cash_on_delivery', 'bank_transfer']);
    const bad = (await gql(t, tenant, `{ availableOfflinePaymentMethods(currency: "ZZQ") { name } }`, {}, tenant.storefrontToken)).json();
    expect(bad.errors[0].extensions.code).toBe('VALIDATION_ERROR');

    const refused = (await gql(t, tenant, METHODS_QUERY, {}, tenant.storefrontToken)).json();
    expect(refused.errors[0].extensions.code).toBe('FORBIDDEN');
    const capturer = await staffWith(t, tenant, ['payments.capture']);
    const denied = (await gql(t, tenant, METHODS_QUERY, {}, capturer)).json();
    expect(denied.errors[0]).toMatchObject({ extensions: { code: 'FORBIDDEN' }, message: expect.stringContaining('payments.read') });
  });

  it('records a receipt only for payments.capture, refusing bad input and other stores’ payments', async () => {
    const MUTATION = `mutation($input: RecordOfflineReceiptInput!) { recordOfflineReceipt(input: $input) { receipt { id amount } payment { status receivedAmount } } }`;
    const reader = await staffWith(t, shop, ['payments.read']);
    const denied = (await gql(t, shop, MUTATION, { input: { paymentId: MISSING, amount: 100 } }, reader)).json();
    expect(denied.errors[0]).toMatchObject({ extensions: { code: 'FORBIDDEN' }, message: expect.stringContaining('payments.capture') });
    const invalid = (await gql(t, shop, MUTATION, { input: { paymentId: 'nope', amount: 0 } })).json();
    expect(invalid.errors[0].extensions.code).toBe('VALIDATION_ERROR');
    expect(invalid.errors[0].message).toContain('input.paymentId');
    const missing = (await gql(t, shop, MUTATION, { input: { paymentId: MISSING, amount: 100 } })).json();
    expect(missing.errors[0].extensions.code).toBe('RESOURCE_NOT_FOUND');
    const receipts = (await gql(t, shop, `{ offlineReceipts(paymentId: "${MISSING}") { edges { node { id } } } }`)).json();
    expect(receipts.data.offlineReceipts.edges).toEqual([]);
    expect((await ok(await admin('GET', RECEIPTS), 200))).toEqual([]);
  });
});
