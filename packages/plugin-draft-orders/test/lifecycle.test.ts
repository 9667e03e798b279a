import type { TestApp } from '@qhatu/core/testing';
import { caller } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, coupon, draftApp, DRAFTS, expectError, levelOf, ok, outbox, product, stock, taxedStore, tokenOf, type Caller, type Draft } from './helpers.js';

// A draft changes freely while open (every change priced again, one line per variant), is placed
// when its invoice is sent or it is completed, can be taken back (its unpaid order cancelled) and
// sent again; what cannot be priced or placed is refused whole, naming why.
let t: TestApp;
let admin: Caller;
let warehouse: string;
beforeAll(async () => {
  t = await draftApp();
  ({ admin } = await taxedStore(t, { includeTax: true }));
  warehouse = (await ok(await admin('POST', '/api/v1/inventory/warehouses', { name: 'Cusco', code: 'WH-CUSCO' }), 201)).id;
});
afterAll(async () => t?.close());

async function draft(body: Record<string, unknown>): Promise<Draft> {
  return ok(await admin('POST', DRAFTS, { email: 'rosa@example.com', shipping_address: ADDRESS, ...body }), 201);
}

describe('an open draft', () => {
  it('adds, merges, changes and removes lines, priced again each time', async () => {
    const p = await product(admin, 2500);
    let d = await draft({});
    expect(d).toMatchObject({ line_items: [], total: 0 });
    d = await ok(await admin('POST', `${DRAFTS}/${d.id}/line-items`, { variant_id: p.variantId, quantity: 1 }), 200);
    d = await ok(await admin('POST', `${DRAFTS}/${d.id}/line-items`, { variant_id: p.variantId, quantity: 2 }), 200);
    expect(d.line_items).toHaveLength(1);
    expect(d.line_items[0]).toMatchObject({ quantity: 3, unit_price: 2500, subtotal: 7500 });
    d = await ok(await admin('POST', `${DRAFTS}/${d.id}/line-items`, { title: 'Engraving', unit_price: 1200, quantity: 1, requires_shipping: false }), 200);
    const [catalogLine, customLine] = d.line_items;
    d = await ok(await admin('PATCH', `${DRAFTS}/${d.id}/line-items/${catalogLine.id}`, { quantity: 1 }), 200);
    d = await ok(await admin('PATCH', `${DRAFTS}/${d.id}/line-items/${customLine.id}`, { unit_price: 1500, tax_class: 'reduced' }), 200);
    expect(d.line_items.map((l) => [l.quantity, l.unit_price, l.tax_class, l.tax_rate])).toEqual([[1, 2500, 'standard', 1800], [1, 1500, 'reduced', 1000]]);
    expect(d).toMatchObject({ subtotal: 4000, total: 4000 });
    d = await ok(await admin('DELETE', `${DRAFTS}/${d.id}/line-items/${catalogLine.id}`), 200);
    expect(d.line_items.map((l) => l.title)).toEqual(['Engraving']);
    expect(await outbox(t, 'draft-orders.draft.updated', d.id)).toHaveLength(6);

    expectError(await admin('DELETE', `${DRAFTS}/${d.id}/line-items/${catalogLine.id}`), 404, 'LINE_NOT_FOUND');
    const refused = expectError(await admin('PATCH', `${DRAFTS}/${d.id}/line-items/${customLine.id}`, { price_override: { amount: 1, reason: 'x' } }), 400, 'VALIDATION_ERROR');
    expect(refused.details[0].path).toBe('body.price_override');
  });

  it('refuses a catalog line with custom fields, a custom line without its title and price, and bad ids (400)', async () => {
    const p = await product(admin, 2500);
    const d = await draft({});
    expectError(await admin('POST', `${DRAFTS}/${d.id}/line-items`, { variant_id: p.variantId, quantity: 1, unit_price: 1 }), 400, 'VALIDATION_ERROR');
    expectError(await admin('POST', `${DRAFTS}/${d.id}/line-items`, { quantity: 1 }), 400, 'VALIDATION_ERROR');
    expectError(await admin('POST', `${DRAFTS}/${d.id}/line-items`, { variant_id: p.variantId, quantity: 0 }), 400, 'VALIDATION_ERROR');
    expectError(await admin('GET', `${DRAFTS}/not-a-uuid`), 400, 'VALIDATION_ERROR');
    expectError(await admin('PATCH', `${DRAFTS}/${d.id}`, { shipping: { carrier: 'olva', service: 'standard', price: 100 } }), 400, 'VALIDATION_ERROR');
    expectError(await admin('PATCH', `${DRAFTS}/${d.id}`, { discount: { code: 'X', amount: 5 } }), 400, 'VALIDATION_ERROR');
  });

  it('refuses what it cannot price, and nothing changes', async () => {
    const p = await product(admin, 2500);
    const d = await draft({ line_items: [{ variant_id: p.variantId, quantity: 1 }] });
    const bad = expectError(await admin('PATCH', `${DRAFTS}/${d.id}`, { discount: { code: 'NOPE-123' } }), 422, 'COUPON_INVALID');
    expect(bad.details[0]).toMatchObject({ path: 'body.discount.code', reason: 'not_found' });
    expectError(await admin('PATCH', `${DRAFTS}/${d.id}`, { shipping_address: null, shipping: { carrier: 'olva', service: 'standard' } }), 422, 'SHIPPING_ADDRESS_REQUIRED');
    expectError(await admin('PATCH', `${DRAFTS}/${d.id}`, { shipping: { carrier: 'olva', service: 'teleport' } }), 422, 'SHIPPING_SERVICE_UNKNOWN');
    expectError(await admin('POST', `${DRAFTS}/${d.id}/line-items`, { variant_id: '00000000-0000-4000-8000-000000000009', quantity: 1 }), 422, 'VARIANT_NOT_FOUND');
    expect(await ok(await admin('GET', `${DRAFTS}/${d.id}`), 200)).toMatchObject({ discount: null, shipping: null, shipping_address: ADDRESS, line_items: [{ variant_id: p.variantId }] });

    // A product taken off sale stops every change but the removal of its line.
    await ok(await admin('PATCH', `/api/v1/catalog/products/${p.productId}`, { status: 'archived' }), 200);
    const gone = expectError(await admin('PATCH', `${DRAFTS}/${d.id}`, { note: 'call first' }), 422, 'PRODUCT_NOT_AVAILABLE');
    expect(gone.details[0]).toMatchObject({ path: 'line_items.0', line_id: d.line_items[0].id });
    expect(await ok(await admin('DELETE', `${DRAFTS}/${d.id}/line-items/${d.line_items[0].id}`), 200)).toMatchObject({ line_items: [], total: 0 });
  });

  it('needs shipping prices from a store that has none: a custom price', async () => {
    const { admin: bare } = await taxedStore(t, { includeTax: true, rates: false });
    const p = await product(bare, 2500);
    const d = await ok(await bare('POST', DRAFTS, { email: 'a@example.com', shipping_address: ADDRESS, line_items: [{ variant_id: p.variantId, quantity: 1 }] }), 201);
    expectError(await bare('PATCH', `${DRAFTS}/${d.id}`, { shipping: { carrier: 'olva', service: 'standard' } }), 422, 'SHIPPING_PRICE_REQUIRED');
    expect(await ok(await bare('PATCH', `${DRAFTS}/${d.id}`, { shipping: { carrier: 'olva', service: 'standard', price: 900, reason: 'Agreed by phone' } }), 200)).toMatchObject({ shipping_total: 900, total: 3400 });
  });
});

describe('placing', () => {
  it('is refused for an empty draft, a draft without e-mail, a coupon that stopped applying, or short stock; the draft stays open', async () => {
    const empty = await draft({});
    expectError(await admin('POST', `${DRAFTS}/${empty.id}/send-invoice`, {}), 422, 'DRAFT_EMPTY');
    const p = await product(admin, 2500);
    const anonymous = await ok(await admin('POST', DRAFTS, { shipping_address: ADDRESS, line_items: [{ variant_id: p.variantId, quantity: 1 }] }), 201);
    expectError(await admin('POST', `${DRAFTS}/${anonymous.id}/complete`, {}), 422, 'DRAFT_EMAIL_REQUIRED');

    const once = await coupon(admin, { max_uses: 1 });
    const withCoupon = await draft({ line_items: [{ variant_id: p.variantId, quantity: 1 }], discount: { code: once.code } });
    const other = await draft({ line_items: [{ variant_id: p.variantId, quantity: 1 }], discount: { code: once.code } });
    await ok(await admin('POST', `${DRAFTS}/${other.id}/complete`, {}), 200);
    expectError(await admin('POST', `${DRAFTS}/${withCoupon.id}/send-invoice`, {}), 422, 'COUPON_INVALID');

    const scarce = await product(admin, 3000);
    await stock(admin, [scarce.variantId], 2, warehouse);
    const big = await draft({ line_items: [{ variant_id: scarce.variantId, quantity: 3 }] });
    expectError(await admin('POST', `${DRAFTS}/${big.id}/send-invoice`, {}), 409, 'INSUFFICIENT_STOCK');
    expect(await ok(await admin('GET', `${DRAFTS}/${big.id}`), 200)).toMatchObject({ status: 'open', order_id: null, invoice_url: null });
    expect(await levelOf(admin, warehouse, scarce.variantId)).toEqual({ on_hand: 2, reserved: 0, available: 2 });
  });

  it('of a draft of total 0 completes it at once: the order is paid as it is placed', async () => {
    const d = await draft({ line_items: [{ title: 'Free sample', unit_price: 0, quantity: 1, requires_shipping: false }] });
    const sent = await ok(await admin('POST', `${DRAFTS}/${d.id}/send-invoice`, {}), 200);
    expect(sent).toMatchObject({ status: 'completed', total: 0, invoice_url: null });
    expect(await ok(await admin('GET', `/api/v1/orders/${sent.order_id}`), 200)).toMatchObject({ status: 'paid', total: 0 });
  });
});

describe('an invoiced draft', () => {
  it('is closed to changes, can be sent again (same order), taken back (its order cancelled, stock back) and sent anew', async () => {
    const p = await product(admin, 2500);
    await stock(admin, [p.variantId], 5, warehouse);
    const d = await draft({ line_items: [{ variant_id: p.variantId, quantity: 2 }] });
    const first = await ok(await admin('POST', `${DRAFTS}/${d.id}/send-invoice`, { notify: false }), 200);
    expect(await levelOf(admin, warehouse, p.variantId)).toMatchObject({ reserved: 2 });
    const closed = expectError(await admin('PATCH', `${DRAFTS}/${d.id}`, { note: 'x' }), 409, 'INVALID_STATE_TRANSITION');
    expect(closed.details[0]).toMatchObject({ from: 'invoice_sent', action: 'edit' });
    expectError(await admin('POST', `${DRAFTS}/${d.id}/line-items`, { variant_id: p.variantId, quantity: 1 }), 409, 'INVALID_STATE_TRANSITION');

    const again = await ok(await admin('POST', `${DRAFTS}/${d.id}/send-invoice`, { notify: false }), 200);
    expect(again.order_id).toBe(first.order_id);

    const reopened = await ok(await admin('POST', `${DRAFTS}/${d.id}/reopen`), 200);
    expect(reopened).toMatchObject({ status: 'open', order_id: null, invoice_url: null });
    expect(await ok(await admin('GET', `/api/v1/orders/${first.order_id}`), 200)).toMatchObject({ status: 'cancelled' });
    expect(await levelOf(admin, warehouse, p.variantId)).toMatchObject({ reserved: 0 });
    const stale = await t.request({ method: 'GET', url: `/api/v1/draft-orders/invoice?token=${encodeURIComponent(tokenOf(first.invoice_url))}` });
    expectError(stale, 410, 'INVOICE_EXPIRED');

    await ok(await admin('PATCH', `${DRAFTS}/${d.id}/line-items/${d.line_items[0].id}`, { quantity: 3 }), 200);
    const second = await ok(await admin('POST', `${DRAFTS}/${d.id}/send-invoice`, { notify: false }), 200);
    expect(second.order_id).not.toBe(first.order_id);
    expect(await ok(await admin('GET', `/api/v1/orders/${second.order_id}`), 200)).toMatchObject({ status: 'pending', total: 7500, line_items: [{ quantity: 3 }] });
    expect(await levelOf(admin, warehouse, p.variantId)).toMatchObject({ reserved: 3 });
    expect((await outbox(t, 'draft-orders.draft.reopened', d.id)).map((e) => e.data.status)).toEqual(['open']);
  });

  it('is cancelled with its unpaid order; a cancelled or completed draft moves no more (409)', async () => {
    const p = await product(admin, 2500);
    const d = await draft({ line_items: [{ variant_id: p.variantId, quantity: 1 }] });
    const sent = await ok(await admin('POST', `${DRAFTS}/${d.id}/send-invoice`, { notify: false }), 200);
    const cancelled = await ok(await admin('POST', `${DRAFTS}/${d.id}/cancel`, { reason: 'Customer changed their mind' }), 200);
    expect(cancelled).toMatchObject({ status: 'cancelled', cancel_reason: 'Customer changed their mind', cancelled_at: expect.any(String) });
    expect(await ok(await admin('GET', `/api/v1/orders/${sent.order_id}`), 200)).toMatchObject({ status: 'cancelled' });
    expectError(await admin('POST', `${DRAFTS}/${d.id}/send-invoice`, {}), 409, 'INVALID_STATE_TRANSITION');
    expectError(await admin('POST', `${DRAFTS}/${d.id}/complete`, {}), 409, 'INVALID_STATE_TRANSITION');
    expectError(await admin('POST', `${DRAFTS}/${d.id}/reopen`), 409, 'INVALID_STATE_TRANSITION');
  });
});

describe('invoice links', () => {
  it('are refused when forged or altered (404)', async () => {
    expectError(await t.request({ method: 'GET', url: '/api/v1/draft-orders/invoice?token=v1.abc.def.ghi' }), 404, 'INVOICE_NOT_FOUND');
    expectError(await t.request({ method: 'GET', url: '/api/v1/draft-orders/invoice' }), 400, 'VALIDATION_ERROR');
    const p = await product(admin, 2500);
    const d = await draft({ line_items: [{ variant_id: p.variantId, quantity: 1 }] });
    const sent = await ok(await admin('POST', `${DRAFTS}/${d.id}/send-invoice`, { notify: false }), 200);
    const token = tokenOf(sent.invoice_url);
    const altered = `${token.slice(0, -4)}${token.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    expectError(await t.request({ method: 'GET', url: `/api/v1/draft-orders/invoice?token=${encodeURIComponent(altered)}` }), 404, 'INVOICE_NOT_FOUND');
  });

  it("open the store's own page when it names one", async () => {
    const s = await ok(await admin('PUT', `${DRAFTS}/settings`, { invoice_url: 'https://shop.example/pay/{token}' }), 200);
    expect(s).toMatchObject({ invoice_url: 'https://shop.example/pay/{token}', invoice_url_is_default: false, link_ttl_days: 30 });
    const p = await product(admin, 2500);
    const d = await draft({ line_items: [{ variant_id: p.variantId, quantity: 1 }] });
    const sent = await ok(await admin('POST', `${DRAFTS}/${d.id}/send-invoice`, { notify: false }), 200);
    expect(sent.invoice_url).toMatch(/^https:\/\/shop\.example\/pay\/v1\./);
    const token = decodeURIComponent(sent.invoice_url.slice('https://shop.example/pay/'.length));
    expect((await t.request({ method: 'GET', url: `/api/v1/draft-orders/invoice?token=${encodeURIComponent(token)}` })).json().data).toMatchObject({ draft_id: d.id });
    expect(await ok(await admin('PUT', `${DRAFTS}/settings`, { invoice_url: null }), 200)).toMatchObject({ invoice_url_is_default: true, invoice_url: expect.stringContaining('/api/v1/draft-orders/invoice?token={token}') });
  });

  it("take a store's first settings sent ten times at once: each lands, one row is kept", async () => {
    const fresh = caller(t, await t.createTenant({ currency: 'PEN' }));
    const urls = Array.from({ length: 10 }, (_, n) => `https://shop.example/pay/${n}/{token}`);
    const answers = await Promise.all(urls.map((invoice_url) => fresh('PUT', `${DRAFTS}/settings`, { invoice_url })));
    expect(answers.map((a) => a.statusCode)).toEqual(urls.map(() => 200));
    expect(urls).toContain((await ok(await fresh('GET', `${DRAFTS}/settings`), 200)).invoice_url);
  });
});

