import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { AppError, Database } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_CREDIT, type StoreCreditService } from '../src/index.js';
import { caller, createCustomer, creditApp, CREDIT, grant, ledgerOf, MISSING, type Caller } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;

beforeAll(async () => {
  t = await creditApp({ workers: true });
  shop = await t.createTenant({ currency: 'USD' });
  other = await t.createTenant({ currency: 'USD' });
  admin = caller(t, shop);
});
afterAll(async () => t?.close());

const graphql = (token: string | undefined, tenant: TestTenant, query: string, variables: Record<string, unknown> = {}) =>
  t.request({ method: 'POST', url: '/graphql', headers: tenant.headers(token), payload: { query, variables } });

describe('staff grants and deductions', () => {
  it('adds and takes credit with a reason, per currency, and the entries add up to the balance', async () => {
    const rosa = await createCustomer(t, shop);
    const granted = await grant(admin, rosa.id, 2500, 'USD', 'Late delivery');
    expect(granted).toMatchObject({ customer_id: rosa.id, kind: 'grant', amount: 2500, balance_after: 2500, reason: 'Late delivery', source: { type: 'staff' } });
    expect(granted.balances).toEqual([expect.objectContaining({ currency: 'USD', balance: 2500 })]);
    await grant(admin, rosa.id, 900, 'PEN');
    const deducted = await admin('POST', `${CREDIT}/customers/${rosa.id}/entries`, { kind: 'deduct', currency: 'USD', amount: 1000, reason: 'Granted twice by mistake' });
    expect(deducted.statusCode, deducted.body).toBe(201);
    expect(deducted.json().data).toMatchObject({ kind: 'deduct', amount: -1000, balance_after: 1500 });

    const read = await admin('GET', `${CREDIT}/customers/${rosa.id}`);
    expect(read.json().data.balances.map((b: { currency: string; balance: number }) => [b.currency, b.balance])).toEqual([['PEN', 900], ['USD', 1500]]);
    const ledger = await ledgerOf(t, shop.id, rosa.id);
    expect(ledger.sum).toBe(1500 + 900);
  });

  it('refuses a deduction beyond the balance with 422 INSUFFICIENT_STORE_CREDIT and writes nothing', async () => {
    const rosa = await createCustomer(t, shop);
    await grant(admin, rosa.id, 300);
    const res = await admin('POST', `${CREDIT}/customers/${rosa.id}/entries`, { kind: 'deduct', currency: 'USD', amount: 301, reason: 'Too much' });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'INSUFFICIENT_STORE_CREDIT', details: [{ path: 'body.amount', balance: 300, currency: 'USD' }] });
    // A currency the customer has no credit in has a balance of zero.
    const none = await admin('POST', `${CREDIT}/customers/${rosa.id}/entries`, { kind: 'deduct', currency: 'EUR', amount: 1, reason: 'Nothing there' });
    expect(none.json().error.code).toBe('INSUFFICIENT_STORE_CREDIT');
    expect((await ledgerOf(t, shop.id, rosa.id)).entries).toHaveLength(1);
  });

  it('answers bad input with 400 VALIDATION_ERROR naming the field', async () => {
    const rosa = await createCustomer(t, shop);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ kind: 'grant', currency: 'USD', amount: 0, reason: 'x' }, 'body.amount'],
      [{ kind: 'grant', currency: 'USD', amount: 10.5, reason: 'x' }, 'body.amount'],
      [{ kind: 'grant', currency: 'usd', amount: 10, reason: 'x' }, 'body.currency'],
      [{ kind: 'grant', currency: 'ZZQ', amount: 10, reason: 'x' }, 'body.currency'],
      [{ kind: 'grant', currency: 'USD', amount: 10, reason: '  ' }, 'body.reason'],
      [{ kind: 'gift', currency: 'USD', amount: 10, reason: 'x' }, 'body.kind'],
    ];
    for (const [body, field] of cases) {
      const res = await admin('POST', `${CREDIT}/customers/${rosa.id}/entries`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
      expect(res.json().error.details.map((d: { path: string }) => d.path)).toContain(field);
    }
    expect((await admin('GET', `${CREDIT}/customers/not-a-uuid`)).statusCode).toBe(400);
  });

  it('needs the store_credit permissions: a storefront key and a customer token are refused', async () => {
    const rosa = await createCustomer(t, shop);
    const store = caller(t, shop, shop.storefrontToken);
    expect((await store('POST', `${CREDIT}/customers/${rosa.id}/entries`, { kind: 'grant', currency: 'USD', amount: 10, reason: 'x' })).statusCode).toBe(403);
    expect((await rosa.api('POST', `${CREDIT}/customers/${rosa.id}/entries`, { kind: 'grant', currency: 'USD', amount: 10, reason: 'x' })).statusCode).toBe(403);
    expect((await rosa.api('GET', `${CREDIT}/customers/${rosa.id}`)).statusCode).toBe(403);
    expect((await ledgerOf(t, shop.id, rosa.id)).entries).toHaveLength(0);
  });
});

describe('another store', () => {
  it("never reaches a customer of another store: 404 CUSTOMER_NOT_FOUND, and nothing is written there", async () => {
    const theirs = await createCustomer(t, other);
    await grant(caller(t, other), theirs.id, 700);
    for (const res of [
      await admin('GET', `${CREDIT}/customers/${theirs.id}`),
      await admin('GET', `${CREDIT}/customers/${theirs.id}/entries`),
      await admin('POST', `${CREDIT}/customers/${theirs.id}/entries`, { kind: 'deduct', currency: 'USD', amount: 700, reason: 'Theft' }),
      await admin('POST', `${CREDIT}/customers/${theirs.id}/entries`, { kind: 'grant', currency: 'USD', amount: 700, reason: 'Gift' }),
      await admin('GET', `${CREDIT}/customers/${MISSING}`),
    ]) {
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json().error.code).toBe('CUSTOMER_NOT_FOUND');
    }
    expect(await ledgerOf(t, other.id, theirs.id)).toMatchObject({ balance: 700, sum: 700 });
    // A customer token of the other store does not open this one.
    expect((await t.request({ method: 'GET', url: `${CREDIT}/me`, headers: shop.headers(theirs.token) })).statusCode).toBe(403);
  });
});

describe('the signed-in customer', () => {
  it('reads their own balances and entries, newest first, in keyset pages', async () => {
    const rosa = await createCustomer(t, shop);
    const someoneElse = await createCustomer(t, shop);
    await grant(admin, someoneElse.id, 99);
    for (let i = 1; i <= 5; i++) await grant(admin, rosa.id, i * 100, 'USD', `Grant ${i}`);
    const mine = await rosa.api('GET', `${CREDIT}/me`);
    expect(mine.json().data).toMatchObject({ customer_id: rosa.id, balances: [{ currency: 'USD', balance: 1500 }] });

    const first = await rosa.api('GET', `${CREDIT}/me/entries?limit=2`);
    expect(first.json().data.map((e: { reason: string }) => e.reason)).toEqual(['Grant 5', 'Grant 4']);
    expect(first.json().meta.pagination).toMatchObject({ has_next: true, limit: 2 });
    // An entry made between two pages does not move the next page.
    await grant(admin, rosa.id, 1, 'USD', 'Grant 6');
    const second = await rosa.api('GET', `${CREDIT}/me/entries?limit=2&cursor=${first.json().meta.pagination.cursor}`);
    expect(second.json().data.map((e: { reason: string }) => e.reason)).toEqual(['Grant 3', 'Grant 2']);
    const last = await rosa.api('GET', `${CREDIT}/me/entries?limit=2&cursor=${second.json().meta.pagination.cursor}`);
    expect(last.json().data.map((e: { reason: string }) => e.reason)).toEqual(['Grant 1']);
    expect(last.json().meta.pagination).toMatchObject({ has_next: false, cursor: null });

    const staffView = await admin('GET', `${CREDIT}/customers/${rosa.id}/entries?filter[kind]=grant&sort=created_at&limit=1`);
    expect(staffView.json().data[0].reason).toBe('Grant 1');
    // The storefront key and the store's admin have no "me".
    expect((await caller(t, shop, shop.storefrontToken)('GET', `${CREDIT}/me`)).statusCode).toBe(403);
  });
});

describe('GraphQL', () => {
  it('serves the customer their own credit and the staff any customer, each field behind its access', async () => {
    const rosa = await createCustomer(t, shop);
    await grant(admin, rosa.id, 1200);
    const mine = await graphql(rosa.token, shop, '{ myStoreCredit { customerId balances { currency balance } } myStoreCreditEntries(limit: 5) { edges { node { kind amount balanceAfter reason } } } }');
    expect(mine.json().errors).toBeUndefined();
    expect(mine.json().data.myStoreCredit).toEqual({ customerId: rosa.id, balances: [{ currency: 'USD', balance: 1200 }] });
    expect(mine.json().data.myStoreCreditEntries.edges[0].node).toEqual({ kind: 'grant', amount: 1200, balanceAfter: 1200, reason: 'Goodwill' });

    const adjusted = await graphql(undefined, shop, 'mutation($id: ID!) { adjustStoreCredit(customerId: $id, input: { kind: deduct, currency: "USD", amount: 200, reason: "Correction" }) { entry { amount } balances { balance } } }', { id: rosa.id });
    expect(adjusted.json().data.adjustStoreCredit).toEqual({ entry: { amount: -200 }, balances: [{ balance: 1000 }] });
    const tooMuch = await graphql(undefined, shop, 'mutation($id: ID!) { adjustStoreCredit(customerId: $id, input: { kind: deduct, currency: "USD", amount: 5000, reason: "x" }) { entry { id } } }', { id: rosa.id });
    expect(tooMuch.json().errors[0].extensions.code).toBe('INSUFFICIENT_STORE_CREDIT');

    const byCustomer = await graphql(rosa.token, shop, 'query($id: ID!) { storeCredit(customerId: $id) { customerId } }', { id: rosa.id });
    expect(byCustomer.json().errors[0].extensions.code).toBe('FORBIDDEN');
    const storefront = await graphql(shop.storefrontToken, shop, '{ myStoreCredit { customerId } }');
    expect(storefront.json().errors[0].extensions.code).toBe('FORBIDDEN');
    const otherStore = await graphql(other.adminToken, other, 'query($id: ID!) { storeCredit(customerId: $id) { customerId } }', { id: rosa.id });
    // GraphQL names every missing record alike.
    expect(otherStore.json().errors[0].extensions.code).toBe('RESOURCE_NOT_FOUND');
  });
});

describe('the contract other plugins call (STORE_CREDIT)', () => {
  const service = () => t.app.container.resolve<StoreCreditService>(STORE_CREDIT);
  const db = () => t.app.container.resolve(Database);

  it("adds credit inside the caller's transaction, once per source, and nothing when the caller rolls back", async () => {
    const rosa = await createCustomer(t, shop);
    const first = await db().tenant((tx) => service().grant(tx, { customerId: rosa.id, currency: 'USD', amount: 1800, reason: 'Return R-1', source: { type: 'return', id: 'ret-1' } }), shop.id);
    expect(first).toEqual({ entryId: expect.any(String), balance: 1800 });
    // The same return again (a retried job): the first entry, nothing added.
    const again = await db().tenant((tx) => service().grant(tx, { customerId: rosa.id, currency: 'USD', amount: 1800, reason: 'Return R-1', source: { type: 'return', id: 'ret-1' } }), shop.id);
    expect(again).toEqual(first);
    // The same return granted at once by two runs: one entry.
    const racing = await Promise.all([1, 2].map(() => db().tenant((tx) => service().grant(tx, { customerId: rosa.id, currency: 'USD', amount: 500, reason: 'Return R-2', source: { type: 'return', id: 'ret-2' } }), shop.id)));
    expect(racing[0].entryId).toBe(racing[1].entryId);

    await expect(
      db().tenant(async (tx) => {
        await service().grant(tx, { customerId: rosa.id, currency: 'USD', amount: 4000, reason: 'Return R-3', source: { type: 'return', id: 'ret-3' } });
        throw new Error('the return could not be closed');
      }, shop.id),
    ).rejects.toThrow('the return could not be closed');
    expect(await ledgerOf(t, shop.id, rosa.id)).toMatchObject({ balance: 2300, sum: 2300 });
    expect((await ledgerOf(t, shop.id, rosa.id)).entries).toHaveLength(2);
  });

  it("refuses bad input and another store's customer", async () => {
    const theirs = await createCustomer(t, other);
    const call = (input: Record<string, unknown>) =>
      db().tenant((tx) => service().grant(tx, { customerId: theirs.id, currency: 'USD', amount: 100, reason: 'r', source: { type: 'return', id: 'x' }, ...input } as never), shop.id);
    await expect(call({})).rejects.toMatchObject({ status: 404, code: 'CUSTOMER_NOT_FOUND' });
    await expect(call({ amount: -5 })).rejects.toBeInstanceOf(AppError);
    await expect(call({ amount: 0 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(call({ currency: 'usd' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((await ledgerOf(t, other.id, theirs.id)).entries).toHaveLength(0);
  });
});

describe('events and e-mails', () => {
  it('publishes each entry through the outbox and e-mails the customer their new balance', async () => {
    const rosa = await createCustomer(t, shop, 'rosa.credit@example.com');
    const entry = await grant(admin, rosa.id, 1250, 'USD', 'Damaged parcel');
    const [event] = await t.app.orm.em.getConnection().execute<Array<{ type: string; data: Record<string, unknown>; tenant_id: string }>>(
      `select type, data, tenant_id from core_outbox where data->>'id' = ?`,
      [entry.id],
    );
    expect(event).toMatchObject({ type: 'store_credit.credit.granted', tenant_id: shop.id, data: { customer_id: rosa.id, amount: 1250, balance: 1250, currency: 'USD', reason: 'Damaged parcel' } });
    await t.settle();
    const folder = path.join(t.app.config.dataDir, 'mail', shop.id);
    const mails = await Promise.all((await readdir(folder)).map((f) => readFile(path.join(folder, f), 'utf8')));
    const mine = mails.filter((m) => m.includes('rosa.credit@example.com'));
    expect(mine).toHaveLength(1);
    expect(mine[0]).toContain('Damaged parcel');
    expect(mine[0]).toContain('$12.50');
  });
});
