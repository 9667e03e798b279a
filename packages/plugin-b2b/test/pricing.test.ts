import { definePlugin, TenantContext, Database } from '@qhatu/core';
import type { TestApp } from '@qhatu/core/testing';
import { PriceResolver, Variant, type PriceResolverStrategy } from '@qhatu/plugin-catalog';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PriceListResolver, priceThrough, type RuleSnapshot } from '../src/index.js';
import { ADDRESS, B2B, b2bApp, collection, company, priceList, product, quote, signUp, store, type Store } from './helpers.js';

let t: TestApp;
let s: Store;
beforeAll(async () => {
  t = await b2bApp();
  s = await store(t);
});
afterAll(async () => t?.close());

const rule = (over: Partial<RuleSnapshot>): RuleSnapshot => ({ id: crypto.randomUUID(), type: 'percentage', value: 10, applies_to: 'all', category_id: null, product_id: null, ...over });

describe('priceThrough (how rules combine)', () => {
  it('the first rule that matches prices the variant; later ones are not applied on top', () => {
    const specific = rule({ applies_to: 'product', product_id: 'p1', type: 'fixed', value: 300 });
    const general = rule({ value: 10 });
    expect(priceThrough([specific, general], 1000, 'p1', new Set())).toEqual({ price: 700, rule: specific });
    expect(priceThrough([general, specific], 1000, 'p1', new Set())).toEqual({ price: 900, rule: general });
    expect(priceThrough([specific], 1000, 'p2', new Set())).toEqual({ price: 1000, rule: null });
  });

  it('percentages round to the nearest minor unit (half up on the amount off); never below 0', () => {
    expect(priceThrough([rule({ value: 15 })], 999, 'p', new Set()).price).toBe(849); // 149.85 off → 150
    expect(priceThrough([rule({ value: 50 })], 1, 'p', new Set()).price).toBe(0); // 0.5 off → 1
    expect(priceThrough([rule({ value: 100 })], 1234, 'p', new Set()).price).toBe(0);
    expect(priceThrough([rule({ type: 'fixed', value: 5000 })], 1234, 'p', new Set()).price).toBe(0);
    const cat = rule({ applies_to: 'category', category_id: 'c1', type: 'fixed', value: 34 });
    expect(priceThrough([cat], 1234, 'p', new Set(['c0', 'c1'])).price).toBe(1200);
    expect(priceThrough([cat], 1234, 'p', new Set(['c0'])).price).toBe(1234);
  });
});

describe('quotes priced through the price list', () => {
  it('each scope and type, in rule order; variants outside every rule at catalog price', async () => {
    const [rice, beans, corn, salt] = [await product(s, 10000), await product(s, 5000), await product(s, 2000), await product(s, 999)];
    const grains = await collection(s, [beans.id, corn.id]);
    const list = await priceList(s, [
      { type: 'fixed', value: 1500, applies_to: 'product', product_id: rice.id },
      { type: 'percentage', value: 20, applies_to: 'category', category_id: grains },
      { type: 'percentage', value: 5, applies_to: 'product', product_id: beans.id }, // never reached: beans are grains
      { type: 'fixed', value: 99999, applies_to: 'product', product_id: salt.id }, // more than the price: 0
    ]);
    const c = await company(s, { price_list_id: list });
    const q = await quote(s, c.id, [
      { variant_id: rice.variantId, quantity: 2 },
      { variant_id: beans.variantId, quantity: 3 },
      { variant_id: corn.variantId, quantity: 1 },
      { variant_id: salt.variantId, quantity: 4 },
    ]);
    const rules = (await s.admin('GET', `${B2B}/price-lists/${list}`)).json().data.rules;
    expect(q.items.map((i: Record<string, unknown>) => [i.catalog_price, i.unit_price, i.quantity, i.total, i.rule_id])).toEqual([
      [10000, 8500, 2, 17000, rules[0].id],
      [5000, 4000, 3, 12000, rules[1].id],
      [2000, 1600, 1, 1600, rules[1].id],
      [999, 0, 4, 0, rules[3].id],
    ]);
    expect([q.subtotal, q.discount, q.total]).toEqual([20000 + 15000 + 2000 + 3996, 40996 - 30600, 30600]);
    expect(q.price_list_id).toBe(list);

    // An `all` rule first wins over everything after it.
    const flat = await priceList(s, [{ type: 'percentage', value: 10, applies_to: 'all' }, { type: 'fixed', value: 1500, applies_to: 'product', product_id: rice.id }]);
    const d = await company(s, { price_list_id: flat });
    const q2 = await quote(s, d.id, [{ variant_id: rice.variantId, quantity: 1 }]);
    expect(q2.items[0]).toMatchObject({ unit_price: 9000, total: 9000 });
  });

  it('no list, an empty list or a list of another currency: catalog prices, discount 0', async () => {
    const p = await product(s, 4200);
    // The store sells in dollars too (no rate: only prices set in them); a dollar list does not price soles.
    expect((await s.admin('PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate: null }] })).statusCode).toBe(200);
    const lists = [null, await priceList(s, []), await priceList(s, [{ type: 'percentage', value: 50, applies_to: 'all' }], 'USD')];
    for (const price_list_id of lists) {
      const c = await company(s, { price_list_id });
      const q = await quote(s, c.id, [{ variant_id: p.variantId, quantity: 2 }]);
      expect([q.items[0].unit_price, q.subtotal, q.discount, q.total, q.items[0].rule_id]).toEqual([4200, 8400, 0, 8400, null]);
    }
  });
});

describe('a B2B buyer\'s order lines (OrderPrices through the PriceResolver)', () => {
  async function setUp(status = 'active') {
    const p = await product(s, 10000);
    const list = await priceList(s, [{ type: 'percentage', value: 25, applies_to: 'all' }]);
    const c = await company(s, { price_list_id: list });
    const buyer = await signUp(t, s);
    await s.admin('POST', `${B2B}/customers/${c.id}/buyers`, { customer_id: buyer.id });
    if (status !== 'active') await s.admin('PATCH', `${B2B}/customers/${c.id}`, { status });
    return { p, list, c, buyer };
  }
  const order = (email: string, variantId: string, price?: number) =>
    s.admin('POST', '/api/v1/orders', { customer_email: email, line_items: [{ variant_id: variantId, quantity: 2, price }], shipping_address: ADDRESS });

  it("a buyer's order is charged the list price whatever price is sent, and keeps the list and rule in its snapshot", async () => {
    const { p, list, c, buyer } = await setUp();
    const res = await order(buyer.email, p.variantId, 1);
    expect(res.statusCode).toBe(201);
    const placed = res.json().data;
    expect(placed.line_items[0]).toMatchObject({ unit_price_amount: 7500, total_amount: 15000 });
    const rules = (await s.admin('GET', `${B2B}/price-lists/${list}`)).json().data.rules;
    const snapshot = await s.admin('GET', `${B2B}/orders/${placed.id}/prices`);
    expect(snapshot.statusCode).toBe(200);
    expect(snapshot.json().data).toEqual({
      order_id: placed.id, b2b_customer_id: c.id, quote_id: null,
      lines: [{ variant_id: p.variantId, catalog_price: 10000, unit_price: 7500, price_list_id: list, rule: { id: rules[0].id, type: 'percentage', value: 25, applies_to: 'all', category_id: null, product_id: null } }],
    });
  });

  it('anyone else pays the catalog price: a shopper of no company, a company on hold keeps its prices, a disabled one does not', async () => {
    const stranger = await signUp(t, s);
    const { p } = await setUp();
    expect((await order(stranger.email, p.variantId)).json().data.line_items[0].unit_price_amount).toBe(10000);
    expect((await order('guest@example.com', p.variantId)).json().data.line_items[0].unit_price_amount).toBe(10000);
    const held = await setUp('on_hold');
    expect((await order(held.buyer.email, held.p.variantId)).json().data.line_items[0].unit_price_amount).toBe(7500);
    const disabled = await setUp('disabled');
    const placed = (await order(disabled.buyer.email, disabled.p.variantId)).json().data;
    expect(placed.line_items[0].unit_price_amount).toBe(10000);
    expect((await s.admin('GET', `${B2B}/orders/${placed.id}/prices`)).statusCode).toBe(404);
  });

  it("another store's buyer link gives nothing here (tenant isolation)", async () => {
    const other = await store(t);
    const p = await product(other, 10000);
    const list = await priceList(other, [{ type: 'percentage', value: 90, applies_to: 'all' }]);
    const c = await company(other, { price_list_id: list });
    const buyer = await signUp(t, other);
    await other.admin('POST', `${B2B}/customers/${c.id}/buyers`, { customer_id: buyer.id });
    // The same e-mail signed up in this store is another account, of no company.
    const here = await s.admin('POST', '/api/v1/customers', { email: buyer.email, first_name: 'Same', last_name: 'Mail' });
    expect(here.statusCode).toBe(201);
    const mine = await product(s, 10000);
    expect((await order(buyer.email, mine.variantId)).json().data.line_items[0].unit_price_amount).toBe(10000);
    expect((await other.admin('POST', '/api/v1/orders', { customer_email: buyer.email, line_items: [{ variant_id: p.variantId, quantity: 1 }], shipping_address: ADDRESS })).json().data.line_items[0].unit_price_amount).toBe(1000);
  });
});

describe('the PriceResolver strategy', () => {
  it('is this plugin\'s resolver; a guest costs no statement, a buyer one, a collection rule one more', async () => {
    const resolver = t.app.container.resolve<PriceResolverStrategy>(PriceResolver);
    expect(resolver).toBeInstanceOf(PriceListResolver);
    const p = await product(s, 10000);
    const grains = await collection(s, [p.id]);
    const list = await priceList(s, [{ type: 'fixed', value: 100, applies_to: 'all' }]);
    const c = await company(s, { price_list_id: list });
    const buyer = await signUp(t, s);
    await s.admin('POST', `${B2B}/customers/${c.id}/buyers`, { customer_id: buyer.id });
    const db = t.app.container.resolve(Database);
    const run = (customerId: string | null) =>
      t.countQueries(() => TenantContext.run({ tenantId: s.tenant.id }, () => db.tenant(async (tx) => {
        const variants = await tx.em.find(Variant, { id: p.variantId });
        return resolver.resolve(tx, variants, { customerId });
      })));
    // BEGIN, tenant entry, the variant, COMMIT: 4 statements around the resolution itself.
    const guest = await run(null);
    expect(guest.result.get(p.variantId)).toMatchObject({ price: 10000, catalogPrice: 10000, priceListId: null, ruleId: null });
    const plain = await run(buyer.id);
    expect(plain.result.get(p.variantId)).toMatchObject({ price: 9900, catalogPrice: 10000, priceListId: list });
    expect(plain.count - guest.count).toBe(1);
    await s.admin('POST', `${B2B}/price-lists/${list}/rules`, { type: 'fixed', value: 500, applies_to: 'category', category_id: grains, position: 1 });
    const withCategory = await run(buyer.id);
    expect(withCategory.result.get(p.variantId)).toMatchObject({ price: 9500 });
    expect(withCategory.count - guest.count).toBe(2);
  });

  it('gives list prices to the signed-in buyer and to the store, never to a caller that merely names the buyer', async () => {
    const resolver = t.app.container.resolve<PriceResolverStrategy>(PriceResolver);
    const p = await product(s, 10000);
    const list = await priceList(s, [{ type: 'percentage', value: 30, applies_to: 'all' }]);
    const c = await company(s, { price_list_id: list });
    const buyer = await signUp(t, s);
    const other = await signUp(t, s);
    await s.admin('POST', `${B2B}/customers/${c.id}/buyers`, { customer_id: buyer.id });
    const db = t.app.container.resolve(Database);
    const as = (kind: 'admin' | 'staff' | 'storefront' | 'customer' | null, subjectId: string | null = null) =>
      TenantContext.run({ tenantId: s.tenant.id, ...(kind ? { principal: { kind, subjectId, tokenId: 'tok', tenantId: s.tenant.id, id: subjectId ?? 'tok', permissions: null } } : {}) }, () =>
        db.tenant(async (tx) => (await resolver.resolve(tx, await tx.em.find(Variant, { id: p.variantId }), { customerId: buyer.id })).get(p.variantId)!.price),
      );
    expect(await as('customer', buyer.id)).toBe(7000);
    expect(await as('admin')).toBe(7000);
    expect(await as('staff', 'a-staff-member')).toBe(7000);
    expect(await as(null)).toBe(7000);
    expect(await as('customer', other.id)).toBe(10000);
    expect(await as('storefront')).toBe(10000);
  });

  it('lists and reads within a statement budget (whatever the page holds)', async () => {
    const own = await store(t);
    const p = await product(own, 100);
    for (let i = 0; i < 3; i++) {
      const list = await priceList(own, [{ type: 'fixed', value: 1, applies_to: 'all' }, { type: 'fixed', value: 2, applies_to: 'product', product_id: p.id }]);
      const c = await company(own, { price_list_id: list });
      await quote(own, c.id, [{ variant_id: p.variantId, quantity: 1 }]);
    }
    await own.admin('GET', `${B2B}/quotes`); // the key's lookup is cached from here on
    const budget = async (url: string, rows: number) => {
      const { result, count } = await t.countQueries(() => own.admin('GET', url));
      expect(result.json().data).toHaveLength(rows);
      return count;
    };
    // BEGIN with the tenant entry, the page, COMMIT; price lists one more for their rules.
    expect(await budget(`${B2B}/quotes`, 3)).toBe(3);
    expect(await budget(`${B2B}/customers`, 3)).toBe(3);
    expect(await budget(`${B2B}/price-lists`, 3)).toBe(4);
  });

  it('a plugin registered after this one replaces it again, for order lines too', async () => {
    const halfPrice: PriceResolverStrategy = {
      async resolve(_tx, variants) {
        return new Map(variants.map((v) => [v.id, { variantId: v.id, catalogPrice: v.price, price: Math.floor(v.price / 2), currency: v.currency, priceListId: null, ruleId: null }]));
      },
    };
    const replacing = definePlugin({ name: 'half-price', dependsOn: ['b2b'], register: (c) => void c.register(PriceResolver, { useValue: halfPrice }) });
    const other = await b2bApp({ extra: [replacing] });
    try {
      const o = await store(other);
      const p = await product(o, 10000);
      const res = await o.admin('POST', '/api/v1/orders', { customer_email: 'x@example.com', line_items: [{ variant_id: p.variantId, quantity: 1 }], shipping_address: ADDRESS });
      expect(res.json().data.line_items[0].unit_price_amount).toBe(5000);
    } finally {
      await other.close();
    }
  });
});
