import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fulfilledOrder, ok, product, requestReturn, returnsApp, shop, shopper, type Order, type Ret, type Shop } from './helpers.js';

// `q` on the returns list: words of the customer's e-mail, or a number standing for a return or
// its order; in the list's own order, paged by the list's cursors, within the caller's store.
let t: TestApp;
let s: Shop;
let other: Shop;
const orders: Order[] = [];
const made: Ret[] = [];

const list = async (query: string, api = s.admin) => {
  const res = await api('GET', `/api/v1/returns?${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { data: Ret[]; meta: { pagination: { cursor: string | null; has_next: boolean } } };
};
const numbers = (rets: Ret[]) => rets.map((r) => r.number as number);

beforeAll(async () => {
  t = await returnsApp();
  [s, other] = [await shop(t, false), await shop(t, false)];
  const { variantId } = await product(s, 2000, 50);
  // Three customers' orders: lucia twice, then carmen; one return each.
  for (const email of ['lucia.huaman@example.pe', 'carmen.apaza@example.pe', 'lucia.huaman@example.pe']) {
    const o = await fulfilledOrder(t, s, { email, line_items: [{ variant_id: variantId, quantity: 2 }] });
    orders.push(o);
    made.push(await requestReturn(s.admin, { order_id: o.id, lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] }));
  }
  // A second return of carmen's order.
  made.push(await requestReturn(s.admin, { order_id: orders[1].id, lines: [{ line_item_id: orders[1].line_items[0].id, quantity: 1 }] }));
  // The other store has a return of lucia's too.
  const theirs = await product(other, 2000, 5);
  const o = await fulfilledOrder(t, other, { email: 'lucia.huaman@example.pe', line_items: [{ variant_id: theirs.variantId, quantity: 1 }] });
  await requestReturn(other.admin, { order_id: o.id, lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] });
}, 120_000);
afterAll(async () => t?.close());

describe('GET /api/v1/returns?q=', () => {
  it('finds returns by words of the e-mail, newest first, in the store only', async () => {
    expect(numbers((await list('q=lucia')).data)).toEqual([made[2].number, made[0].number]);
    expect(numbers((await list('q=HUAMAN%20example')).data)).toEqual([made[2].number, made[0].number]);
    expect(numbers((await list('q=carmen.apaza@example.pe')).data)).toEqual([made[3].number, made[1].number]);
    expect((await list('q=nadie')).data).toEqual([]);
    // The other store's lucia has one return, its own.
    const theirs = (await list('q=lucia', other.admin)).data;
    expect(theirs).toHaveLength(1);
    expect(theirs[0].email).toBe('lucia.huaman@example.pe');
    expect(made.map((r) => r.id)).not.toContain(theirs[0].id);
  });

  it('finds a return by its number, and the returns of an order by the order’s number', async () => {
    for (const q of [`${made[1].number}`, `R${made[1].number}`, `%23R${made[1].number}`]) expect((await list(`q=${q}`)).data.map((r) => r.id)).toContain(made[1].id);
    const ofOrder = (await list(`q=%23${orders[1].number}`)).data.map((r) => r.id);
    expect(ofOrder).toEqual(expect.arrayContaining([made[1].id, made[3].id]));
    // A number no return nor order of the store has finds nothing, though the other store's are numbered alike.
    expect((await list('q=999999')).data).toEqual([]);
  });

  it('pages a search by the list’s cursors, in the sort asked for, with the other filters', async () => {
    const first = await list('q=example&limit=3');
    expect(first.data).toHaveLength(3);
    expect(first.meta.pagination.has_next).toBe(true);
    const second = await list(`q=example&limit=3&cursor=${encodeURIComponent(first.meta.pagination.cursor!)}`);
    expect(second.meta.pagination.has_next).toBe(false);
    expect([...numbers(first.data), ...numbers(second.data)]).toEqual(numbers([...made].reverse()));
    expect(numbers((await list('q=example&sort=number')).data)).toEqual(numbers(made));
    await ok(await s.admin('POST', `/api/v1/returns/${made[0].id}/approve`), 200);
    expect(numbers((await list('q=lucia&filter[status]=approved')).data)).toEqual([made[0].number]);
    expect(numbers((await list(`q=lucia&filter[order_id]=${orders[2].id}`)).data)).toEqual([made[2].number]);
  });

  it('keeps a customer to their own returns, and refuses a search too long with the error body', async () => {
    const customer = await shopper(t, s);
    expect((await list('q=lucia', customer.api)).data).toEqual([]);
    const long = await s.admin('GET', `/api/v1/returns?q=${'a'.repeat(500)}`);
    expect(long.statusCode).toBe(400);
    expect(long.json().error.code).toBe('VALIDATION_ERROR');
  });
});
