import { Database, TenantContext } from '@qhatu/core';
import type { TestApp } from '@qhatu/core/testing';
import { Orders } from '@qhatu/plugin-orders';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_CREDIT, type AccountCreditService } from '../src/index.js';
import { ADDRESS, B2B, b2bApp, caller, company, MISSING, outbox, priceList, product, quote, signUp, store, type Store } from './helpers.js';

/** A clock the test moves (quotes expire). */
class TestClock {
  private at = Date.now();
  now = () => new Date(this.at);
  advance(ms: number) {
    this.at += ms;
  }
}
const DAY = 86_400_000;

const clock = new TestClock();
let t: TestApp;
let s: Store;
beforeAll(async () => {
  t = await b2bApp({ clock });
  s = await store(t);
});
afterAll(async () => t?.close());

/** A sent quote of a company with a 20%-off list and `credit` on account; the company's buyer. */
async function sentQuote(over: { credit?: number; price?: number; quantity?: number; into?: Store } = {}) {
  const at = over.into ?? s;
  const p = await product(at, over.price ?? 10000);
  const list = await priceList(at, [{ type: 'percentage', value: 20, applies_to: 'all' }]);
  const c = await company(at, { price_list_id: list, credit_limit: over.credit ?? 1_000_000 });
  const buyer = await signUp(t, at);
  await at.admin('POST', `${B2B}/customers/${c.id}/buyers`, { customer_id: buyer.id });
  const q = await quote(at, c.id, [{ variant_id: p.variantId, quantity: over.quantity ?? 5 }]);
  expect((await at.admin('POST', `${B2B}/quotes/${q.id}/send`)).statusCode).toBe(200);
  return { p, list, c, buyer, q, asBuyer: caller(t, at.tenant, buyer.token) };
}

const accept = (at: Store, id: string) => at.admin('POST', `${B2B}/quotes/${id}/accept`);
const convert = (at: Store, id: string, body: unknown = { shipping_address: ADDRESS }) => at.admin('POST', `${B2B}/quotes/${id}/convert`, body);
const codeOf = (res: { statusCode: number; json(): any }) => [res.statusCode, res.json().error?.code];

describe('accept and reject', () => {
  it('the store records an acceptance (sent → accepted); the event goes out', async () => {
    const { q } = await sentQuote();
    const res = await accept(s, q.id);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'accepted', accepted_at: clock.now().toISOString(), decided_by: expect.stringMatching(/^store:/) });
    expect(await outbox(t, 'b2b.quote.accepted', q.id)).toEqual([expect.objectContaining({ data: expect.objectContaining({ status: 'accepted', number: q.number }) })]);
  });

  it('a buyer of the company sees its sent quotes and answers them; drafts and other companies are 404 to it', async () => {
    const { q, c, buyer, asBuyer, p } = await sentQuote();
    const draft = await quote(s, c.id, [{ variant_id: p.variantId, quantity: 1 }]);
    const list = (await asBuyer('GET', `${B2B}/quotes`)).json().data.map((x: { id: string }) => x.id);
    expect(list).toEqual([q.id]);
    expect((await asBuyer('GET', `${B2B}/quotes/${q.id}`)).statusCode).toBe(200);
    expect((await asBuyer('GET', `${B2B}/quotes/${draft.id}`)).statusCode).toBe(404);
    const other = await sentQuote();
    expect((await asBuyer('GET', `${B2B}/quotes/${other.q.id}`)).statusCode).toBe(404);
    expect(codeOf(await asBuyer('POST', `${B2B}/quotes/${other.q.id}/accept`))).toEqual([404, 'QUOTE_NOT_FOUND']);
    const res = await asBuyer('POST', `${B2B}/quotes/${q.id}/reject`, { reason: 'Precio alto' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'rejected', rejection_reason: 'Precio alto', rejected_at: clock.now().toISOString(), decided_by: `customer:${buyer.id}` });
    expect(await outbox(t, 'b2b.quote.rejected', q.id)).toHaveLength(1);
    // A shopper of no company sees nothing; a buyer cannot convert or send.
    const stranger = await signUp(t, s);
    expect((await caller(t, s.tenant, stranger.token)('GET', `${B2B}/quotes`)).json().data).toEqual([]);
    expect((await asBuyer('POST', `${B2B}/quotes/${other.q.id}/convert`, {})).statusCode).toBe(403);
    expect((await caller(t, s.tenant, s.tenant.storefrontToken)('GET', `${B2B}/quotes`)).statusCode).toBe(403);
  });

  it('illegal moves are 409 INVALID_STATE_TRANSITION: answering a draft, answering twice, accepting a rejected quote', async () => {
    const c = await company(s);
    const draft = await quote(s, c.id, [{ variant_id: (await product(s, 100)).variantId, quantity: 1 }]);
    expect(codeOf(await accept(s, draft.id))).toEqual([409, 'INVALID_STATE_TRANSITION']);
    expect(codeOf(await s.admin('POST', `${B2B}/quotes/${draft.id}/reject`))).toEqual([409, 'INVALID_STATE_TRANSITION']);
    const { q } = await sentQuote();
    await s.admin('POST', `${B2B}/quotes/${q.id}/reject`, {});
    expect(codeOf(await accept(s, q.id))).toEqual([409, 'INVALID_STATE_TRANSITION']);
    expect(codeOf(await s.admin('POST', `${B2B}/quotes/${q.id}/reject`))).toEqual([409, 'INVALID_STATE_TRANSITION']);
    expect(codeOf(await s.admin('POST', `${B2B}/quotes/${q.id}/send`))).toEqual([409, 'INVALID_STATE_TRANSITION']);
    const accepted = (await sentQuote()).q;
    await accept(s, accepted.id);
    expect(codeOf(await accept(s, accepted.id))).toEqual([409, 'INVALID_STATE_TRANSITION']);
    expect(codeOf(await s.admin('POST', `${B2B}/quotes/${accepted.id}/reject`))).toEqual([409, 'INVALID_STATE_TRANSITION']);
    expect(codeOf(await accept(s, MISSING))).toEqual([404, 'QUOTE_NOT_FOUND']);
  });

  it('a quote past valid_until cannot be accepted (409 QUOTE_EXPIRED) but can be rejected', async () => {
    const { q } = await sentQuote();
    clock.advance(31 * DAY);
    expect(codeOf(await accept(s, q.id))).toEqual([409, 'QUOTE_EXPIRED']);
    expect((await s.admin('POST', `${B2B}/quotes/${q.id}/reject`, { reason: 'expired' })).statusCode).toBe(200);
  });

  it('a disabled company cannot accept (409 B2B_CUSTOMER_DISABLED)', async () => {
    const { q, c } = await sentQuote();
    await s.admin('PATCH', `${B2B}/customers/${c.id}`, { status: 'disabled' });
    expect(codeOf(await accept(s, q.id))).toEqual([409, 'B2B_CUSTOMER_DISABLED']);
  });
});

describe('convert: an order on account at the quoted prices', () => {
  it('places the order once, at the list prices (through OrderPrices), with its snapshot; the quote is converted', async () => {
    const { q, c, p, list } = await sentQuote();
    await accept(s, q.id);
    // The list changes after the quote: the quote's prices hold.
    const rules = (await s.admin('GET', `${B2B}/price-lists/${list}`)).json().data.rules;
    await s.admin('DELETE', `${B2B}/price-lists/${list}/rules/${rules[0].id}`);
    const res = await convert(s, q.id);
    expect(res.statusCode).toBe(200);
    const converted = res.json().data;
    expect(converted).toMatchObject({ status: 'converted', order_id: expect.any(String), converted_at: clock.now().toISOString() });
    const order = (await s.admin('GET', `/api/v1/orders/${converted.order_id}`)).json().data;
    expect(order).toMatchObject({ status: 'pending', customer_email: c.email, currency: 'PEN', total: 40000 });
    expect(order.line_items).toEqual([expect.objectContaining({ variant_id: p.variantId, quantity: 5, unit_price_amount: 8000, total_amount: 40000 })]);
    const snapshot = (await s.admin('GET', `${B2B}/orders/${converted.order_id}/prices`)).json().data;
    expect(snapshot).toEqual({
      order_id: converted.order_id, b2b_customer_id: c.id, quote_id: q.id,
      lines: [{ variant_id: p.variantId, catalog_price: 10000, unit_price: 8000, price_list_id: list, rule: { id: rules[0].id, type: 'percentage', value: 20, applies_to: 'all', category_id: null, product_id: null } }],
    });
    expect(await outbox(t, 'b2b.quote.converted', q.id)).toEqual([expect.objectContaining({ data: expect.objectContaining({ status: 'converted', order_id: converted.order_id }) })]);
    expect(await outbox(t, 'orders.order.created', converted.order_id)).toHaveLength(1);

    expect(codeOf(await convert(s, q.id))).toEqual([409, 'INVALID_STATE_TRANSITION']);
    const orders = (await s.admin('GET', `/api/v1/orders?filter[customer_email]=${encodeURIComponent(c.email)}`)).json().data;
    expect(orders).toHaveLength(1);
  });

  it('a catalog price that fell below the quoted price since is charged instead (never more than the catalog)', async () => {
    const { q, p } = await sentQuote({ price: 10000 });
    await accept(s, q.id);
    await s.admin('PATCH', `/api/v1/catalog/products/${p.id}/variants/${p.variantId}`, { price: 7000 });
    const order = (await s.admin('GET', `/api/v1/orders/${(await convert(s, q.id)).json().data.order_id}`)).json().data;
    expect(order.line_items[0].unit_price_amount).toBe(7000);
  });

  it('only an accepted quote converts (409), a company on hold or disabled gets no order on account (409)', async () => {
    const { q } = await sentQuote();
    expect(codeOf(await convert(s, q.id))).toEqual([409, 'INVALID_STATE_TRANSITION']);
    const rejected = (await sentQuote()).q;
    await s.admin('POST', `${B2B}/quotes/${rejected.id}/reject`);
    expect(codeOf(await convert(s, rejected.id))).toEqual([409, 'INVALID_STATE_TRANSITION']);
    const held = await sentQuote();
    await accept(s, held.q.id);
    await s.admin('PATCH', `${B2B}/customers/${held.c.id}`, { status: 'on_hold' });
    expect(codeOf(await convert(s, held.q.id))).toEqual([409, 'B2B_CUSTOMER_ON_HOLD']);
    await s.admin('PATCH', `${B2B}/customers/${held.c.id}`, { status: 'disabled' });
    expect(codeOf(await convert(s, held.q.id))).toEqual([409, 'B2B_CUSTOMER_DISABLED']);
    await s.admin('PATCH', `${B2B}/customers/${held.c.id}`, { status: 'active' });
    expect((await convert(s, held.q.id)).statusCode).toBe(200);
  });

  it('needs a shipping address when an item ships (422 from the orders plugin; nothing changes)', async () => {
    const { q } = await sentQuote();
    await accept(s, q.id);
    expect(codeOf(await convert(s, q.id, {}))).toEqual([422, 'SHIPPING_ADDRESS_REQUIRED']);
    expect((await s.admin('GET', `${B2B}/quotes/${q.id}`)).json().data.status).toBe('accepted');
    expect((await convert(s, q.id, { shipping_address: { ...ADDRESS, country_code: 'peru' } })).statusCode).toBe(400);
  });

  it('404 for another store\'s quote (tenant isolation)', async () => {
    const other = await store(t);
    const { q } = await sentQuote({ into: other });
    await accept(other, q.id);
    expect(codeOf(await convert(s, q.id))).toEqual([404, 'QUOTE_NOT_FOUND']);
    expect(codeOf(await accept(s, q.id))).toEqual([404, 'QUOTE_NOT_FOUND']);
    expect((await other.admin('GET', `${B2B}/quotes/${q.id}`)).json().data.status).toBe('accepted');
  });
});

describe('credit limit', () => {
  it('an order on account may not take the open balance past the limit (422 CREDIT_LIMIT_EXCEEDED); cancelled and paid orders free it', async () => {
    const own = await store(t);
    const p = await product(own, 10000);
    const c = await company(own, { credit_limit: 100000 });
    const placeAccepted = async (quantity: number) => {
      const q = await quote(own, c.id, [{ variant_id: p.variantId, quantity }]);
      await own.admin('POST', `${B2B}/quotes/${q.id}/send`);
      await accept(own, q.id);
      return q;
    };
    const first = await placeAccepted(6);
    const firstOrder = (await convert(own, first.id)).json().data.order_id;
    const credit = (await own.admin('GET', `${B2B}/customers/${c.id}/credit`)).json().data;
    expect(credit).toEqual({ b2b_customer_id: c.id, currency: 'PEN', credit_limit: 100000, open_balance: 60000, available: 40000, open_orders: [{ order_id: firstOrder, quote_id: first.id, total: 60000, credited: 0, due: 60000, placed_at: expect.any(String) }] });

    const second = await placeAccepted(5);
    const refused = await convert(own, second.id);
    expect(codeOf(refused)).toEqual([422, 'CREDIT_LIMIT_EXCEEDED']);
    expect(refused.json().error.details).toEqual([expect.objectContaining({ credit_limit: 100000, open_balance: 60000, order_total: 50000, available: 40000 })]);
    expect((await own.admin('GET', `${B2B}/quotes/${second.id}`)).json().data).toMatchObject({ status: 'accepted', order_id: null });
    // Nothing of the refused order remains: the next order takes the next number.
    const exact = await placeAccepted(4);
    expect((await convert(own, exact.id)).statusCode).toBe(200); // 60000 + 40000 = the limit exactly
    expect((await own.admin('GET', `${B2B}/customers/${c.id}/credit`)).json().data).toMatchObject({ open_balance: 100000, available: 0 });
    const orderNumbers = (await own.admin('GET', '/api/v1/orders')).json().data.map((o: { number: number }) => o.number).sort();
    expect(orderNumbers).toEqual([1001, 1002]);

    expect((await own.admin('POST', `/api/v1/orders/${firstOrder}/cancel`, { reason: 'duplicado' })).statusCode).toBe(200);
    expect((await own.admin('GET', `${B2B}/customers/${c.id}/credit`)).json().data).toMatchObject({ open_balance: 40000, available: 60000 });
    expect((await convert(own, second.id)).statusCode).toBe(200);

    // Paying an order on account settles it.
    const warehouse = (await own.admin('POST', '/api/v1/inventory/warehouses', { name: 'Lima', code: 'LIM' })).json().data.id;
    await own.admin('POST', `/api/v1/inventory/warehouses/${warehouse}/stock/adjust`, { variant_id: p.variantId, delta: 100, reason: 'received' });
    const exactOrder = (await own.admin('GET', `${B2B}/quotes/${exact.id}`)).json().data.order_id;
    const paid = await TenantContext.run({ tenantId: own.tenant.id }, () =>
      t.app.container.resolve(Orders).paymentConfirmed({ payment_id: 'pay_exact', order_id: exactOrder, amount: 40000, currency: 'PEN' }),
    );
    expect(paid?.status).toBe('paid');
    expect((await own.admin('GET', `${B2B}/customers/${c.id}/credit`)).json().data).toMatchObject({ open_balance: 50000, available: 50000 });

    // A part payment lowers what is owed; the order stays open until paid in full.
    const secondOrder = (await own.admin('GET', `${B2B}/quotes/${second.id}`)).json().data.order_id;
    const part = await TenantContext.run({ tenantId: own.tenant.id }, () =>
      t.app.container.resolve(Orders).paymentConfirmed({ payment_id: 'pay_part', order_id: secondOrder, amount: 20000, currency: 'PEN' }),
    );
    expect(part?.status).toBe('pending');
    const afterPart = (await own.admin('GET', `${B2B}/customers/${c.id}/credit`)).json().data;
    expect(afterPart).toMatchObject({ open_balance: 30000, available: 70000 });
    expect(afterPart.open_orders).toEqual([expect.objectContaining({ order_id: secondOrder, total: 50000, due: 30000 })]);
  });

  it('concurrent conversions cannot overdraw together: one of two that each fit alone is refused', async () => {
    const own = await store(t);
    const p = await product(own, 10000);
    const c = await company(own, { credit_limit: 100000 });
    const qs = [];
    for (let i = 0; i < 2; i++) {
      const q = await quote(own, c.id, [{ variant_id: p.variantId, quantity: 7 }]);
      await own.admin('POST', `${B2B}/quotes/${q.id}/send`);
      await accept(own, q.id);
      qs.push(q);
    }
    const answers = await Promise.all(qs.map((q) => convert(own, q.id)));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 422]);
    expect((await own.admin('GET', `${B2B}/customers/${c.id}/credit`)).json().data.open_balance).toBe(70000);
  });

  it('a company with no credit (0, the default) gets no order on account; credit of another store is 404', async () => {
    const own = await store(t);
    const p = await product(own, 100);
    const c = await company(own);
    const q = await quote(own, c.id, [{ variant_id: p.variantId, quantity: 1 }]);
    await own.admin('POST', `${B2B}/quotes/${q.id}/send`);
    await accept(own, q.id);
    expect(codeOf(await convert(own, q.id))).toEqual([422, 'CREDIT_LIMIT_EXCEEDED']);
    expect(codeOf(await s.admin('GET', `${B2B}/customers/${c.id}/credit`))).toEqual([404, 'B2B_CUSTOMER_NOT_FOUND']);
  });
});

describe('the contract other plugins call (ACCOUNT_CREDIT)', () => {
  const service = () => t.app.container.resolve<AccountCreditService>(ACCOUNT_CREDIT);
  const db = () => t.app.container.resolve(Database);
  const onAccount = async () => {
    const { c, q } = await sentQuote();
    expect((await accept(s, q.id)).statusCode).toBe(200);
    const orderId: string = (await convert(s, q.id)).json().data.order_id;
    return { c, orderId };
  };

  it('sets returned goods against what the company owes, once per source, inside the caller’s transaction', async () => {
    const { c, orderId } = await onAccount();
    const input = (amount: number, id: string) => ({ orderId, amount, reason: `Return ${id}`, source: { type: 'return', id } });
    expect(await db().tenant((tx) => service().ofOrder(tx, orderId), s.tenant.id)).toMatchObject({ b2bCustomerId: c.id, total: 40000, credited: 0, due: 40000 });

    const first = await db().tenant((tx) => service().credit(tx, input(10000, 'r1')), s.tenant.id);
    expect(first).toMatchObject({ amount: 10000, applied: 10000, due: 30000, available: 970000, repeated: false });
    // The same source again, or twice at once: the first credit, nothing added.
    expect(await db().tenant((tx) => service().credit(tx, input(10000, 'r1')), s.tenant.id)).toMatchObject({ creditId: first.creditId, repeated: true, due: 30000 });
    const racing = await Promise.all([1, 2].map(() => db().tenant((tx) => service().credit(tx, input(5000, 'r2')), s.tenant.id)));
    expect(racing[0].creditId).toBe(racing[1].creditId);
    // Rolled back with its caller.
    await expect(db().tenant(async (tx) => {
      await service().credit(tx, input(4000, 'r3'));
      throw new Error('the return could not be refunded');
    }, s.tenant.id)).rejects.toThrow('the return could not be refunded');
    expect((await s.admin('GET', `${B2B}/customers/${c.id}/credit`)).json().data).toMatchObject({ open_balance: 25000, open_orders: [expect.objectContaining({ credited: 15000, due: 25000 })] });

    // More than is owed: only what is owed comes off (the rest is the caller's to pay back); the order is settled.
    expect(await db().tenant((tx) => service().credit(tx, input(30000, 'r4')), s.tenant.id)).toMatchObject({ amount: 30000, applied: 25000, due: 0, available: 1_000_000 });
    expect((await s.admin('GET', `${B2B}/customers/${c.id}/credit`)).json().data).toMatchObject({ open_balance: 0, open_orders: [] });
    expect((await outbox(t, 'b2b.account.credited', first.creditId))[0].data).toMatchObject({ order_id: orderId, b2b_customer_id: c.id, amount: 10000, applied: 10000, order_due: 30000 });
  });

  it('refuses bad input, an order not on account and another store’s order', async () => {
    const { orderId } = await onAccount();
    const other = await store(t);
    const call = (over: Record<string, unknown>, tenantId = s.tenant.id) =>
      db().tenant((tx) => service().credit(tx, { orderId, amount: 100, reason: 'Return', source: { type: 'return', id: 'x' }, ...over } as never), tenantId);
    await expect(call({ amount: 0 })).rejects.toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    await expect(call({ amount: 1.5 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(call({ reason: ' ' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(call({ source: { type: 'return', id: '' } })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(call({ orderId: MISSING })).rejects.toMatchObject({ status: 404, code: 'ACCOUNT_ORDER_NOT_FOUND' });
    await expect(call({}, other.tenant.id)).rejects.toMatchObject({ status: 404, code: 'ACCOUNT_ORDER_NOT_FOUND' });
    expect(await db().tenant((tx) => service().ofOrder(tx, orderId), other.tenant.id)).toBeNull();
  });
});
