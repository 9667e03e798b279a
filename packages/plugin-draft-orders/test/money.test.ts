import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, coupon, customer, draftApp, DRAFTS, levelOf, mailsOf, ok, outbox, product, stock, taxedStore, tokenOf, volumeTier, type Caller, type Draft } from './helpers.js';

// A draft is priced as a checkout prices a cart (customer's prices, volume tiers, a coupon, the
// store's shipping rates, tax per line after discounts) and placed as the order of exactly those
// amounts, to the cent: prices without tax and with it, custom lines taxed at their own class.
let t: TestApp;
beforeAll(async () => {
  t = await draftApp();
});
afterAll(async () => t?.close());

/**
 * Two catalog lines (2 × 19.99; 3 × 45.50 with a 10 % tier from 3 units), a custom line (2 × 3.50,
 * class `reduced`, not shipped), a 10 % coupon, Olva standard for 4 kg (15.00) to Cusco.
 */
async function fullDraft(admin: Caller) {
  const a = await product(admin, 1999, { weight_grams: 500 });
  const b = await product(admin, 4550, { weight_grams: 1000 });
  await volumeTier(admin, b.productId, 3, 1000);
  const warehouse = await stock(admin, [a.variantId, b.variantId], 10);
  const buyer = await customer(admin);
  const code = (await coupon(admin)).code;
  const res = await admin('POST', DRAFTS, {
    customer_id: buyer.id,
    shipping_address: ADDRESS,
    line_items: [
      { variant_id: a.variantId, quantity: 2 },
      { variant_id: b.variantId, quantity: 3 },
      { title: 'Gift wrapping', unit_price: 350, quantity: 2, tax_class: 'reduced', requires_shipping: false },
    ],
    shipping: { carrier: 'olva', service: 'standard' },
    discount: { code },
  });
  expect(res.statusCode, res.body).toBe(201);
  return { draft: res.json().data as Draft, a, b, warehouse, buyer, code };
}

/** What every priced draft holds: the lines add up to its totals, to the cent. */
function expectConsistent(d: Draft) {
  const sum = (k: string) => d.line_items.reduce((s: number, l: Record<string, number>) => s + l[k], 0);
  expect(sum('subtotal')).toBe(d.subtotal);
  expect(sum('total')).toBe(d.subtotal - d.discount_total);
  expect(sum('tax_amount') + d.shipping_tax).toBe(d.tax_total);
  expect(d.total).toBe(d.subtotal - d.discount_total + d.shipping_total + (d.prices_include_tax ? 0 : d.tax_total));
}

describe('prices without tax (tax added)', () => {
  it('prices every line, the coupon, the volume tier, the shipping and the tax to the cent', async () => {
    const { admin } = await taxedStore(t, { includeTax: false });
    const { draft } = await fullDraft(admin);
    expect(draft).toMatchObject({ status: 'open', number: 1, name: 'D1', currency: 'PEN', subtotal: 18348, discount_total: 1365 + 1698, shipping_total: 1500, tax_total: 2971, shipping_tax: 270, prices_include_tax: false, total: 19756, order_id: null });
    expect(draft.line_items.map((l) => [l.unit_price, l.subtotal, l.volume_discount, l.discount_amount, l.total, l.tax_rate, l.tax_amount])).toEqual([
      [1999, 3998, 0, 400, 3598, 1800, 648],
      [4550, 13650, 1365, 2593, 11057, 1800, 1990],
      [350, 700, 0, 70, 630, 1000, 63],
    ]);
    expect(draft.discount).toMatchObject({ type: 'coupon', applies: true, amount: 1698 });
    expect(draft.shipping).toEqual({ carrier: 'olva', service: 'standard', price: 1500, custom: false, reason: null });
    expectConsistent(draft);
  });

  it('places the order of exactly those amounts: numbered, stock held, the coupon used, the customer e-mailed a link', async () => {
    const { tenant, admin } = await taxedStore(t, { includeTax: false });
    const { draft, a, b, warehouse, buyer, code } = await fullDraft(admin);
    const sent = await admin('POST', `${DRAFTS}/${draft.id}/send-invoice`, {});
    expect(sent.statusCode, sent.body).toBe(200);
    const invoiced = sent.json().data as Draft;
    expect(invoiced).toMatchObject({ status: 'invoice_sent', total: 19756, order_id: expect.any(String), invoice_url: expect.stringContaining('/api/v1/draft-orders/invoice?token=') });

    const order = await ok(await admin('GET', `/api/v1/orders/${invoiced.order_id}`), 200);
    expect(order).toMatchObject({
      number: 1001, status: 'pending', customer_id: buyer.id, customer_email: buyer.email, currency: 'PEN',
      subtotal: 18348, discount_total: 3063, shipping_total: 1500, tax_total: 2971, shipping_tax: 270, prices_include_tax: false, total: 19756, amount_due: 19756,
    });
    expect(order.line_items.map((l: Record<string, unknown>) => [l.variant_id, l.title, l.quantity, l.unit_price_amount, l.discount_amount, l.tax_class, l.tax_rate, l.tax_amount])).toEqual([
      [a.variantId, expect.any(String), 2, 1999, 400, 'standard', 1800, 648],
      [b.variantId, expect.any(String), 3, 4550, 2593, 'standard', 1800, 1990],
      [null, 'Gift wrapping', 2, 350, 70, 'reduced', 1000, 63],
    ]);
    expect(await levelOf(admin, warehouse, a.variantId)).toEqual({ on_hand: 10, reserved: 2, available: 8 });
    expect(await levelOf(admin, warehouse, b.variantId)).toEqual({ on_hand: 10, reserved: 3, available: 7 });
    const used = await ok(await admin('GET', `/api/v1/discounts/coupons/code/${code}`), 200);
    expect(used.uses_count).toBe(1);
    expect(await outbox(t, 'orders.order.created', order.id)).toHaveLength(1);
    expect((await outbox(t, 'draft-orders.draft.invoice_sent', draft.id))[0].data).toMatchObject({ id: draft.id, status: 'invoice_sent', order_id: order.id, total: 19756 });

    const [mail] = await mailsOf(t, tenant);
    const text = mail.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    expect(text).toContain(`To: ${buyer.email}`);
    expect(text).toContain('#1001');
    expect(text).toContain('PEN 197.56');
    expect(text).toContain(invoiced.invoice_url.split('token=')[1].slice(0, 40));

    // The link is the credential: no key, no X-Tenant-ID.
    const view = await t.request({ method: 'GET', url: `/api/v1/draft-orders/invoice?token=${encodeURIComponent(tokenOf(invoiced.invoice_url))}` });
    expect(view.statusCode, view.body).toBe(200);
    expect(view.json().data).toMatchObject({ tenant_id: tenant.id, draft_name: 'D1', order_id: order.id, order_number: 1001, total: 19756, amount_due: 19756, tax_total: 2971 });
    expect(view.json().data.line_items.reduce((s: number, l: { total: number }) => s + l.total, 0)).toBe(18348 - 3063);
  });
});

describe('prices with tax (tax included)', () => {
  it('takes the tax out of the same amounts, and the order is the draft', async () => {
    const { admin } = await taxedStore(t, { includeTax: true });
    const { draft } = await fullDraft(admin);
    expect(draft).toMatchObject({ subtotal: 18348, discount_total: 3063, shipping_total: 1500, tax_total: 2522, shipping_tax: 229, prices_include_tax: true, total: 16785 });
    expect(draft.line_items.map((l) => l.tax_amount)).toEqual([549, 1687, 57]);
    expectConsistent(draft);
    const placed = await ok(await admin('POST', `${DRAFTS}/${draft.id}/complete`, {}), 200);
    expect(placed.status).toBe('completed');
    const order = await ok(await admin('GET', `/api/v1/orders/${placed.order_id}`), 200);
    expect(order).toMatchObject({ status: 'pending', subtotal: 18348, discount_total: 3063, tax_total: 2522, prices_include_tax: true, total: 16785, amount_due: 16785 });
    expect(order.line_items.map((l: { tax_amount: number }) => l.tax_amount)).toEqual([549, 1687, 57]);
  });
});

describe('overrides and manual discounts', () => {
  it('charges the price staff set (no tier on it) and a manual amount spread over the lines', async () => {
    const { admin } = await taxedStore(t, { includeTax: false });
    const b = await product(admin, 4550, { weight_grams: 1000 });
    await volumeTier(admin, b.productId, 3, 1000);
    const res = await admin('POST', DRAFTS, {
      email: 'walkin@example.com',
      shipping_address: ADDRESS,
      line_items: [{ variant_id: b.variantId, quantity: 3, price_override: { amount: 3999, reason: 'Damaged box' } }, { title: 'Alteration', unit_price: 1001, quantity: 1, requires_shipping: false }],
      shipping: { carrier: 'courier', service: 'moto', price: 777, reason: 'Same-day courier' },
      discount: { amount: 1000, reason: 'Loyal customer' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const d = res.json().data as Draft;
    // 3 × 39.99 = 119.97 (no tier: the price is staff's) + 10.01 = 129.98; 10.00 off in proportion: 923 and 77.
    expect(d.line_items.map((l) => [l.unit_price, l.volume_discount, l.discount_amount, l.total])).toEqual([[3999, 0, 923, 11074], [1001, 0, 77, 924]]);
    expect(d.line_items[0].price_override).toMatchObject({ amount: 3999, reason: 'Damaged box', set_by: expect.any(String) });
    expect(d).toMatchObject({ subtotal: 12998, discount_total: 1000, shipping_total: 777, shipping: { custom: true, price: 777, reason: 'Same-day courier' } });
    // 11074 × 18 % = 1993.32; 924 × 18 % = 166.32; 777 × 18 % = 139.86.
    expect(d).toMatchObject({ tax_total: 1993 + 166 + 140, total: 12998 - 1000 + 777 + 2299 });
    expectConsistent(d);
    const done = await ok(await admin('POST', `${DRAFTS}/${d.id}/complete`, {}), 200);
    const order = await ok(await admin('GET', `/api/v1/orders/${done.order_id}`), 200);
    expect(order).toMatchObject({ subtotal: 12998, discount_total: 1000, shipping_total: 777, tax_total: 2299, total: 15074 });
    expect(order.line_items.map((l: { unit_price_amount: number }) => l.unit_price_amount)).toEqual([3999, 1001]);
  });
});

describe('a B2B buyer', () => {
  it("is priced at its company's price list, in the draft and in the order", async () => {
    const { admin } = await taxedStore(t, { includeTax: false });
    const p = await product(admin, 4000, { weight_grams: 100 });
    const list = await ok(await admin('POST', '/api/v1/b2b/price-lists', { name: 'Mayoristas', currency: 'PEN' }), 201);
    await ok(await admin('POST', `/api/v1/b2b/price-lists/${list.id}/rules`, { type: 'percentage', value: 25, applies_to: 'all' }), 201);
    const company = await ok(await admin('POST', '/api/v1/b2b/customers', { company_name: 'Andes Distribuciones S.A.C.', ruc: '20100070970', email: 'compras@andes.pe', price_list_id: list.id }), 201);
    const buyer = await customer(admin);
    await ok(await admin('POST', `/api/v1/b2b/customers/${company.id}/buyers`, { customer_id: buyer.id }), 201);

    const made = await ok(await admin('POST', DRAFTS, { customer_id: buyer.id, shipping_address: ADDRESS, line_items: [{ variant_id: p.variantId, quantity: 2 }], shipping: { carrier: 'olva', service: 'standard' } }), 201);
    expect(made.line_items[0]).toMatchObject({ catalog_price: 4000, unit_price: 3000, subtotal: 6000 });
    expect(made).toMatchObject({ email: buyer.email, subtotal: 6000, shipping_total: 1500, tax_total: 1080 + 270, total: 8850 });
    const done = await ok(await admin('POST', `${DRAFTS}/${made.id}/complete`, {}), 200);
    const order = await ok(await admin('GET', `/api/v1/orders/${done.order_id}`), 200);
    expect(order).toMatchObject({ customer_id: buyer.id, subtotal: 6000, total: 8850 });
    expect(order.line_items[0].unit_price_amount).toBe(3000);
  });
});

