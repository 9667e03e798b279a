import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rucProblem } from '../src/index.js';
import { B2B, b2bApp, caller, company, MISSING, outbox, priceList, ruc, signUp, store, wrongDigit, type Store } from './helpers.js';

let t: TestApp;
let s: Store;
beforeAll(async () => {
  t = await b2bApp();
  s = await store(t);
});
afterAll(async () => t?.close());

describe('RUC', () => {
  it.each([
    ['20100070970', null],
    ['20131312955', null],
    ['10467793549', null],
    ['20100070971', 'has a wrong check digit'],
    ['20131312954', 'has a wrong check digit'],
    ['30100070970', 'must begin with 10, 15, 17, 20'],
    ['2010007097', 'must be 11 digits'],
    ['2010007097a', 'must be 11 digits'],
  ])('%s: %s', (value, problem) => expect(rucProblem(value)).toBe(problem));

  it('the check digit wraps: 11 - 1 = 10 gives 0, 11 - 0 = 11 gives 1', () => {
    // 2000000001: weighted sum 2*5 + 1*2 = 12, 12 % 11 = 1. 2000000006: 2*5 + 6*2 = 22, 22 % 11 = 0.
    expect([rucProblem('20000000010'), rucProblem('20000000011')]).toEqual([null, 'has a wrong check digit']);
    expect([rucProblem('20000000061'), rucProblem('20000000060')]).toEqual([null, 'has a wrong check digit']);
  });
});

describe('POST /b2b/customers', () => {
  it('creates an active customer with every field (201), e-mail lower-cased', async () => {
    const list = await priceList(s);
    const id = ruc();
    const res = await s.admin('POST', `${B2B}/customers`, { company_name: 'Textiles Cusco S.A.', ruc: id, email: 'Ventas@Textiles.PE', phone: '+51 84 222 333', credit_limit: 500000, price_list_id: list });
    expect(res.statusCode).toBe(201);
    const data = res.json().data;
    expect(data).toEqual({
      id: expect.any(String), company_name: 'Textiles Cusco S.A.', ruc: id, email: 'ventas@textiles.pe', phone: '+51 84 222 333',
      credit_limit: 500000, price_list_id: list, status: 'active', created_at: expect.any(String), updated_at: expect.any(String),
    });
    expect(await outbox(t, 'b2b.customer.created', data.id)).toHaveLength(1);
    expect((await s.admin('GET', `${B2B}/customers/${data.id}`)).json().data).toEqual(data);
  });

  it('defaults: no phone, credit 0, no price list', async () => {
    const res = await s.admin('POST', `${B2B}/customers`, { company_name: 'Sierra SAC', ruc: ruc('10'), email: 'a@sierra.pe' });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ phone: null, credit_limit: 0, price_list_id: null, status: 'active' });
  });

  it('refuses a RUC with a wrong check digit, a wrong prefix or length (400, the field named)', async () => {
    for (const bad of [wrongDigit(ruc()), '30100070970', '201000709', 'abcdefghijk']) {
      const res = await s.admin('POST', `${B2B}/customers`, { company_name: 'X', ruc: bad, email: 'x@x.pe' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
      expect(res.json().error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'body.ruc' })]));
    }
  });

  it('accepts each valid prefix (10, 15, 17, 20)', async () => {
    for (const prefix of ['10', '15', '17', '20']) expect((await s.admin('POST', `${B2B}/customers`, { company_name: `P${prefix}`, ruc: ruc(prefix), email: 'p@p.pe' })).statusCode).toBe(201);
  });

  it('a RUC is unique in a store (409 RUC_TAKEN, also under concurrent creates) but not across stores', async () => {
    const id = ruc();
    await company(s, { ruc: id });
    const again = await s.admin('POST', `${B2B}/customers`, { company_name: 'Copy', ruc: id, email: 'c@c.pe' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('RUC_TAKEN');
    const race = ruc();
    const answers = await Promise.all([1, 2, 3, 4].map(() => s.admin('POST', `${B2B}/customers`, { company_name: 'Race', ruc: race, email: 'r@r.pe' })));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409, 409, 409]);
    const other = await store(t);
    expect((await other.admin('POST', `${B2B}/customers`, { company_name: 'Elsewhere', ruc: id, email: 'e@e.pe' })).statusCode).toBe(201);
  });

  it('checks the body: required fields, e-mail, negative credit, unknown fields (400); unknown or foreign price list (422)', async () => {
    const missing = await s.admin('POST', `${B2B}/customers`, {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.details.map((d: { path: string }) => d.path)).toEqual(expect.arrayContaining(['body.company_name', 'body.ruc', 'body.email']));
    for (const body of [{ email: 'nope' }, { credit_limit: -1 }, { credit_limit: 1.5 }, { colour: 'red' }, { status: 'closed' }]) {
      expect((await s.admin('POST', `${B2B}/customers`, { company_name: 'X', ruc: ruc(), email: 'x@x.pe', ...body })).statusCode).toBe(400);
    }
    const other = await store(t);
    for (const price_list_id of [MISSING, await priceList(other)]) {
      const res = await s.admin('POST', `${B2B}/customers`, { company_name: 'X', ruc: ruc(), email: 'x@x.pe', price_list_id });
      expect(res.statusCode).toBe(422);
      expect(res.json().error.code).toBe('PRICE_LIST_NOT_FOUND');
    }
  });

  it('needs an admin token', async () => {
    const shopper = await signUp(t, s);
    for (const token of [s.tenant.storefrontToken, shopper.token]) {
      expect((await caller(t, s.tenant, token)('POST', `${B2B}/customers`, { company_name: 'X', ruc: ruc(), email: 'x@x.pe' })).statusCode).toBe(403);
      expect((await caller(t, s.tenant, token)('GET', `${B2B}/customers`)).statusCode).toBe(403);
    }
    expect((await t.request({ method: 'GET', url: `${B2B}/customers`, headers: { 'x-tenant-id': s.tenant.id } })).statusCode).toBe(401);
  });
});

describe('GET /b2b/customers', () => {
  it('pages newest first with a cursor: 25 by default, at most 100, filter[status]', async () => {
    const own = await store(t);
    const ids: string[] = [];
    for (let i = 0; i < 27; i++) ids.push((await company(own, { company_name: `C${i}` })).id);
    const first = (await own.admin('GET', `${B2B}/customers`)).json();
    expect(first.data).toHaveLength(25);
    expect(first.meta.pagination).toMatchObject({ has_next: true, limit: 25 });
    expect(first.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(2).reverse());
    const second = (await own.admin('GET', `${B2B}/customers?cursor=${first.meta.pagination.cursor}`)).json();
    expect(second.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(0, 2).reverse());
    expect(second.meta.pagination).toMatchObject({ has_next: false, cursor: null });
    expect((await own.admin('GET', `${B2B}/customers?limit=500`)).json().meta.pagination.limit).toBe(100);
    expect((await own.admin('GET', `${B2B}/customers?limit=0`)).statusCode).toBe(400);
    expect((await own.admin('GET', `${B2B}/customers?cursor=garbage`)).statusCode).toBe(400);
    await own.admin('PATCH', `${B2B}/customers/${ids[3]}`, { status: 'on_hold' });
    expect((await own.admin('GET', `${B2B}/customers?filter[status]=on_hold`)).json().data.map((c: { id: string }) => c.id)).toEqual([ids[3]]);
  });
});

describe('GET and PATCH /b2b/customers/:id', () => {
  it('404 for an unknown id, another store\'s customer, 400 for a malformed id', async () => {
    const other = await store(t);
    const foreign = await company(other);
    for (const id of [MISSING, foreign.id]) {
      const res = await s.admin('GET', `${B2B}/customers/${id}`);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('B2B_CUSTOMER_NOT_FOUND');
      expect((await s.admin('PATCH', `${B2B}/customers/${id}`, { credit_limit: 1 })).statusCode).toBe(404);
    }
    expect((await s.admin('GET', `${B2B}/customers/not-a-uuid`)).statusCode).toBe(400);
  });

  it('changes only the fields sent, each one; null removes the phone and the price list', async () => {
    const list = await priceList(s);
    const c = await company(s, { price_list_id: list });
    const newRuc = ruc();
    const res = await s.admin('PATCH', `${B2B}/customers/${c.id}`, { company_name: 'Nuevo Nombre SAC', ruc: newRuc, email: 'NEW@andes.pe', credit_limit: 900, phone: null, price_list_id: null });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ company_name: 'Nuevo Nombre SAC', ruc: newRuc, email: 'new@andes.pe', credit_limit: 900, phone: null, price_list_id: null, status: 'active', created_at: c.created_at });
    const events = await outbox(t, 'b2b.customer.updated', c.id);
    expect(events.at(-1)!.data.changed).toEqual(['company_name', 'ruc', 'email', 'phone', 'credit_limit', 'price_list_id']);
    const same = await s.admin('PATCH', `${B2B}/customers/${c.id}`, { credit_limit: 900 });
    expect(same.json().data.updated_at).toBe(res.json().data.updated_at);
    expect((await s.admin('PATCH', `${B2B}/customers/${c.id}`, { ruc: wrongDigit(newRuc) })).statusCode).toBe(400);
    const taken = await company(s);
    const clash = await s.admin('PATCH', `${B2B}/customers/${c.id}`, { ruc: taken.ruc });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().error.code).toBe('RUC_TAKEN');
    expect((await s.admin('PATCH', `${B2B}/customers/${c.id}`, { price_list_id: MISSING })).json().error.code).toBe('PRICE_LIST_NOT_FOUND');
  });

  it('status moves: active ↔ on_hold, → disabled, disabled → active; disabled → on_hold is 409', async () => {
    const c = await company(s);
    const move = async (status: string) => s.admin('PATCH', `${B2B}/customers/${c.id}`, { status });
    expect((await move('on_hold')).json().data.status).toBe('on_hold');
    expect((await move('active')).json().data.status).toBe('active');
    expect((await move('on_hold')).statusCode).toBe(200);
    expect((await move('disabled')).json().data.status).toBe('disabled');
    const illegal = await move('on_hold');
    expect(illegal.statusCode).toBe(409);
    expect(illegal.json().error.code).toBe('INVALID_STATE_TRANSITION');
    expect((await s.admin('GET', `${B2B}/customers/${c.id}`)).json().data.status).toBe('disabled');
    expect((await move('active')).json().data.status).toBe('active');
    expect((await move('disabled')).statusCode).toBe(200);
  });
});

describe('buyers', () => {
  it('links customer accounts, lists them with their names, unlinks; one company per account', async () => {
    const c = await company(s);
    const [a, b] = [await signUp(t, s), await signUp(t, s)];
    const linked = await s.admin('POST', `${B2B}/customers/${c.id}/buyers`, { customer_id: a.id });
    expect(linked.statusCode).toBe(201);
    expect(linked.json().data).toEqual({ b2b_customer_id: c.id, customer_id: a.id, email: a.email, first_name: 'Luis', last_name: 'Huamán', created_at: expect.any(String) });
    await s.admin('POST', `${B2B}/customers/${c.id}/buyers`, { customer_id: b.id });
    const page = (await s.admin('GET', `${B2B}/customers/${c.id}/buyers?limit=1`)).json();
    expect(page.data.map((x: { customer_id: string }) => x.customer_id)).toEqual([a.id]);
    const next = (await s.admin('GET', `${B2B}/customers/${c.id}/buyers?limit=1&cursor=${page.meta.pagination.cursor}`)).json();
    expect(next.data.map((x: { customer_id: string }) => x.customer_id)).toEqual([b.id]);
    expect(next.meta.pagination.has_next).toBe(false);

    const again = await s.admin('POST', `${B2B}/customers/${c.id}/buyers`, { customer_id: a.id });
    expect([again.statusCode, again.json().error.code]).toEqual([409, 'BUYER_ALREADY_LINKED']);
    const elsewhere = await company(s);
    expect((await s.admin('POST', `${B2B}/customers/${elsewhere.id}/buyers`, { customer_id: a.id })).statusCode).toBe(409);

    expect((await s.admin('DELETE', `${B2B}/customers/${c.id}/buyers/${a.id}`)).statusCode).toBe(204);
    expect((await s.admin('DELETE', `${B2B}/customers/${c.id}/buyers/${a.id}`)).statusCode).toBe(404);
    expect((await s.admin('POST', `${B2B}/customers/${elsewhere.id}/buyers`, { customer_id: a.id })).statusCode).toBe(201);
  });

  it('an unknown or foreign customer account is a 422; an unknown company a 404', async () => {
    const c = await company(s);
    const other = await store(t);
    const foreign = await signUp(t, other);
    for (const customer_id of [MISSING, foreign.id]) {
      const res = await s.admin('POST', `${B2B}/customers/${c.id}/buyers`, { customer_id });
      expect([res.statusCode, res.json().error.code]).toEqual([422, 'CUSTOMER_NOT_FOUND']);
    }
    expect((await s.admin('POST', `${B2B}/customers/${MISSING}/buyers`, { customer_id: foreign.id })).statusCode).toBe(404);
    expect((await s.admin('GET', `${B2B}/customers/${MISSING}/buyers`)).statusCode).toBe(404);
  });
});
