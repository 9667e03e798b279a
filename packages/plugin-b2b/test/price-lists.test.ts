import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { B2B, b2bApp, caller, collection, MISSING, product, signUp, store, type Store } from './helpers.js';

let t: TestApp;
let s: Store;
beforeAll(async () => {
  t = await b2bApp();
  s = await store(t);
});
afterAll(async () => t?.close());

const newList = async (over: Record<string, unknown> = {}) => s.admin('POST', `${B2B}/price-lists`, { name: 'Distribuidores', currency: 'PEN', description: 'Tarifa 2027', ...over });

describe('price lists', () => {
  it('POST creates a list with no rules (201); GET reads it; PATCH renames it', async () => {
    const res = await newList();
    expect(res.statusCode).toBe(201);
    const list = res.json().data;
    expect(list).toEqual({ id: expect.any(String), name: 'Distribuidores', currency: 'PEN', description: 'Tarifa 2027', rules: [], created_at: expect.any(String), updated_at: expect.any(String) });
    expect((await s.admin('GET', `${B2B}/price-lists/${list.id}`)).json().data).toEqual(list);
    const renamed = await s.admin('PATCH', `${B2B}/price-lists/${list.id}`, { name: 'Mayoristas Lima' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().data).toMatchObject({ name: 'Mayoristas Lima', currency: 'PEN', description: 'Tarifa 2027' });
    expect((await s.admin('PATCH', `${B2B}/price-lists/${list.id}`, { description: null })).json().data.description).toBeNull();
  });

  it('checks input (400): name, currency, unknown fields; PATCH cannot change the currency', async () => {
    for (const body of [{ name: '' }, { currency: 'pen' }, { currency: 'SOLES' }, { extra: 1 }]) expect((await newList(body)).statusCode).toBe(400);
    expect((await s.admin('POST', `${B2B}/price-lists`, { currency: 'PEN' })).statusCode).toBe(400);
    const list = (await newList()).json().data;
    expect((await s.admin('PATCH', `${B2B}/price-lists/${list.id}`, { currency: 'USD' })).statusCode).toBe(400);
    expect((await s.admin('PATCH', `${B2B}/price-lists/${list.id}`, { name: '  ' })).statusCode).toBe(400);
  });

  it('GET lists with their rules in order, cursor pages, sort by name', async () => {
    const own = await store(t);
    const ids: string[] = [];
    for (const name of ['B', 'A', 'C']) ids.push((await own.admin('POST', `${B2B}/price-lists`, { name, currency: 'PEN' })).json().data.id);
    await own.admin('POST', `${B2B}/price-lists/${ids[0]}/rules`, { type: 'percentage', value: 10, applies_to: 'all' });
    const page = (await own.admin('GET', `${B2B}/price-lists?limit=2`)).json();
    expect(page.data.map((l: { id: string }) => l.id)).toEqual([ids[2], ids[1]]);
    const rest = (await own.admin('GET', `${B2B}/price-lists?limit=2&cursor=${page.meta.pagination.cursor}`)).json();
    expect(rest.data.map((l: { id: string }) => l.id)).toEqual([ids[0]]);
    expect(rest.data[0].rules).toEqual([expect.objectContaining({ type: 'percentage', value: 10, applies_to: 'all', position: 1 })]);
    expect((await own.admin('GET', `${B2B}/price-lists?sort=name`)).json().data.map((l: { name: string }) => l.name)).toEqual(['A', 'B', 'C']);
    expect((await own.admin('GET', `${B2B}/price-lists`)).json().meta.pagination.limit).toBe(25);
  });

  it('404 PRICE_LIST_NOT_FOUND for an unknown or foreign list', async () => {
    const other = await store(t);
    const foreign = (await other.admin('POST', `${B2B}/price-lists`, { name: 'X', currency: 'PEN' })).json().data.id;
    for (const id of [MISSING, foreign]) {
      for (const [method, url, body] of [['GET', '', undefined], ['PATCH', '', { name: 'Y' }], ['POST', '/rules', { type: 'fixed', value: 1, applies_to: 'all' }]] as const) {
        const res = await s.admin(method, `${B2B}/price-lists/${id}${url}`, body);
        expect([res.statusCode, res.json().error.code]).toEqual([404, 'PRICE_LIST_NOT_FOUND']);
      }
    }
    expect((await other.admin('GET', `${B2B}/price-lists/${foreign}`)).statusCode).toBe(200);
  });

  it('is for admins only', async () => {
    const shopper = await signUp(t, s);
    for (const token of [s.tenant.storefrontToken, shopper.token]) {
      expect((await caller(t, s.tenant, token)('GET', `${B2B}/price-lists`)).statusCode).toBe(403);
      expect((await caller(t, s.tenant, token)('POST', `${B2B}/price-lists`, { name: 'X', currency: 'PEN' })).statusCode).toBe(403);
    }
  });
});

describe('rules', () => {
  it('adds each type and scope (201, answered with its position); the list shows them in order', async () => {
    const list = (await newList()).json().data;
    const p = await product(s, 1000);
    const c = await collection(s, [p.id]);
    const inputs = [
      { type: 'percentage', value: 15, applies_to: 'product', product_id: p.id },
      { type: 'fixed', value: 250, applies_to: 'category', category_id: c },
      { type: 'percentage', value: 100, applies_to: 'all' },
      { type: 'fixed', value: 1, applies_to: 'all' },
    ];
    for (const [n, input] of inputs.entries()) {
      const res = await s.admin('POST', `${B2B}/price-lists/${list.id}/rules`, input);
      expect(res.statusCode).toBe(201);
      expect(res.json().data).toEqual({
        id: expect.any(String), price_list_id: list.id, position: n + 1, type: input.type, value: input.value, applies_to: input.applies_to,
        category_id: input.category_id ?? null, product_id: input.product_id ?? null, created_at: expect.any(String),
      });
    }
    const rules = (await s.admin('GET', `${B2B}/price-lists/${list.id}`)).json().data.rules;
    expect(rules.map((r: { value: number }) => r.value)).toEqual([15, 250, 100, 1]);
  });

  it('checks a rule (400): percentage 1 to 100, whole positive values, the id its scope needs and no other', async () => {
    const list = (await newList()).json().data;
    const p = await product(s, 1000);
    const bad = [
      { type: 'percentage', value: 0, applies_to: 'all' },
      { type: 'percentage', value: 101, applies_to: 'all' },
      { type: 'fixed', value: 0, applies_to: 'all' },
      { type: 'fixed', value: 2.5, applies_to: 'all' },
      { type: 'markup', value: 5, applies_to: 'all' },
      { type: 'fixed', value: 5, applies_to: 'brand' },
      { type: 'fixed', value: 5, applies_to: 'category' },
      { type: 'fixed', value: 5, applies_to: 'product' },
      { type: 'fixed', value: 5, applies_to: 'all', product_id: p.id },
      { type: 'fixed', value: 5, applies_to: 'category', product_id: p.id },
    ];
    for (const input of bad) {
      const res = await s.admin('POST', `${B2B}/price-lists/${list.id}/rules`, input);
      expect(res.statusCode, JSON.stringify(input)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    const missing = await s.admin('POST', `${B2B}/price-lists/${list.id}/rules`, { type: 'fixed', value: 5, applies_to: 'product' });
    expect(missing.json().error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'body.product_id' })]));
    expect((await s.admin('GET', `${B2B}/price-lists/${list.id}`)).json().data.rules).toEqual([]);
  });

  it('the product or collection must exist in the store (422), not in another', async () => {
    const list = (await newList()).json().data;
    const other = await store(t);
    const foreignProduct = await product(other, 500);
    const foreignCollection = await collection(other, []);
    for (const product_id of [MISSING, foreignProduct.id]) {
      const res = await s.admin('POST', `${B2B}/price-lists/${list.id}/rules`, { type: 'fixed', value: 5, applies_to: 'product', product_id });
      expect([res.statusCode, res.json().error.code]).toEqual([422, 'PRODUCT_NOT_FOUND']);
    }
    for (const category_id of [MISSING, foreignCollection]) {
      const res = await s.admin('POST', `${B2B}/price-lists/${list.id}/rules`, { type: 'fixed', value: 5, applies_to: 'category', category_id });
      expect([res.statusCode, res.json().error.code]).toEqual([422, 'CATEGORY_NOT_FOUND']);
    }
  });

  it('a rule added at a position moves the later ones down; deleting one (204) moves them up', async () => {
    const list = (await newList()).json().data;
    const add = async (value: number, position?: number) => (await s.admin('POST', `${B2B}/price-lists/${list.id}/rules`, { type: 'fixed', value, applies_to: 'all', position })).json().data;
    const a = await add(1);
    const b = await add(2);
    const c = await add(3, 1);
    await add(4, 99);
    const order = async () => (await s.admin('GET', `${B2B}/price-lists/${list.id}`)).json().data.rules.map((r: { value: number; position: number }) => [r.value, r.position]);
    expect(await order()).toEqual([[3, 1], [1, 2], [2, 3], [4, 4]]);
    expect((await s.admin('DELETE', `${B2B}/price-lists/${list.id}/rules/${a.id}`)).statusCode).toBe(204);
    expect(await order()).toEqual([[3, 1], [2, 2], [4, 3]]);
    const gone = await s.admin('DELETE', `${B2B}/price-lists/${list.id}/rules/${a.id}`);
    expect([gone.statusCode, gone.json().error.code]).toEqual([404, 'PRICE_RULE_NOT_FOUND']);
    // A rule of another list is not found through this one.
    const otherList = (await newList()).json().data;
    expect((await s.admin('DELETE', `${B2B}/price-lists/${otherList.id}/rules/${b.id}`)).statusCode).toBe(404);
    expect((await s.admin('DELETE', `${B2B}/price-lists/${list.id}/rules/${c.id}`)).statusCode).toBe(204);
    expect(await order()).toEqual([[2, 1], [4, 2]]);
  });

  it('concurrent adds keep positions 1..n without gaps', async () => {
    const list = (await newList()).json().data;
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => s.admin('POST', `${B2B}/price-lists/${list.id}/rules`, { type: 'fixed', value: i + 1, applies_to: 'all', position: 1 })));
    expect(answers.every((a) => a.statusCode === 201)).toBe(true);
    const rules = (await s.admin('GET', `${B2B}/price-lists/${list.id}`)).json().data.rules;
    expect(rules.map((r: { position: number }) => r.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('a deleted product takes the rules that name it with it', async () => {
    const list = (await newList()).json().data;
    const p = await product(s, 1000);
    await s.admin('POST', `${B2B}/price-lists/${list.id}/rules`, { type: 'fixed', value: 1, applies_to: 'all' });
    await s.admin('POST', `${B2B}/price-lists/${list.id}/rules`, { type: 'fixed', value: 5, applies_to: 'product', product_id: p.id });
    await s.admin('POST', `${B2B}/price-lists/${list.id}/rules`, { type: 'fixed', value: 3, applies_to: 'all' });
    expect((await s.admin('DELETE', `/api/v1/catalog/products/${p.id}`)).statusCode).toBe(204);
    const values = async () => (await s.admin('GET', `${B2B}/price-lists/${list.id}`)).json().data.rules.map((r: { value: number }) => r.value);
    expect(await values()).toEqual([1, 3]);
    // Rules still go where they are asked, after the gap.
    expect((await s.admin('POST', `${B2B}/price-lists/${list.id}/rules`, { type: 'fixed', value: 7, applies_to: 'all' })).statusCode).toBe(201);
    expect((await s.admin('POST', `${B2B}/price-lists/${list.id}/rules`, { type: 'fixed', value: 9, applies_to: 'all', position: 2 })).statusCode).toBe(201);
    expect(await values()).toEqual([1, 9, 3, 7]);
  });
});
