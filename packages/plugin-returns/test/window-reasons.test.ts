import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, expectError, fulfilledOrder, MISSING, ok, product, requestReturn, returnsApp, shop, shopper, type Shop } from './helpers.js';

// The store's rules for asking: how long after delivery a customer may ask (staff may always), and
// its list of reasons, which staff rename, switch off and on, and remove.
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
let s: Shop;
beforeAll(async () => {
  t = await returnsApp({ clock });
  s = await shop(t, false);
});
afterAll(async () => t?.close());

describe('the return window', () => {
  it('takes a customer’s request within the store’s days after delivery and refuses it after with 422 RETURN_WINDOW_CLOSED', async () => {
    expect(await ok(await s.admin('PUT', '/api/v1/returns/settings', { shipping_refund: 'none', window_days: 14 }), 200)).toMatchObject({ window_days: 14 });
    const customer = await shopper(t, s);
    const a = await product(s, 1000, 5);
    const o = await fulfilledOrder(t, s, { customer_id: customer.id, email: customer.email, line_items: [{ variant_id: a.variantId, quantity: 3 }] });
    const body = { order_id: o.id, reason_code: 'wrong_size', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] };

    clock.advance(13 * DAY);
    await requestReturn(customer.api, body);
    clock.advance(2 * DAY);
    const error = expectError(await customer.api('POST', '/api/v1/returns', body), 422, 'RETURN_WINDOW_CLOSED');
    expect(error.details).toEqual([expect.objectContaining({ path: 'body.order_id', window_days: 14 })]);
    // Staff still take it back (a goodwill return); a longer window lets the customer ask again.
    expect((await requestReturn(s.admin, body)).requested_by).toBe('staff');
    await ok(await s.admin('PUT', '/api/v1/returns/settings', { shipping_refund: 'none', window_days: 30 }), 200);
    expect((await requestReturn(customer.api, body)).requested_by).toBe('customer');
    // No window: no limit.
    await ok(await s.admin('PUT', '/api/v1/returns/settings', { shipping_refund: 'none', window_days: null }), 200);
    expectError(await customer.api('POST', '/api/v1/returns', body), 422, 'RETURN_QUANTITY_EXCEEDED');
    expectError(await s.admin('PUT', '/api/v1/returns/settings', { shipping_refund: 'none', window_days: 0 }), 400, 'VALIDATION_ERROR');
  });
});

describe('the store’s return reasons', () => {
  it('are renamed, switched off (no longer offered nor accepted) and on again, and removed; codes stay unique', async () => {
    const customer = await shopper(t, s);
    const a = await product(s, 1000, 5);
    const o = await fulfilledOrder(t, s, { customer_id: customer.id, email: customer.email, line_items: [{ variant_id: a.variantId, quantity: 3 }] });
    const ask = (code: string) => customer.api('POST', '/api/v1/returns', { order_id: o.id, reason_code: code, lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] });
    const made = await ok(await s.admin('POST', '/api/v1/return-reasons', { code: 'arrived_late', label: 'Arrived late' }), 201);
    expect(made).toMatchObject({ code: 'arrived_late', label: 'Arrived late', active: true });

    const renamed = await ok(await s.admin('PATCH', `/api/v1/return-reasons/${made.id}`, { label: 'Arrived too late' }), 200);
    expect(renamed).toMatchObject({ code: 'arrived_late', label: 'Arrived too late', active: true });

    // Switched off: the storefront no longer lists it, staff see it inactive, a request naming it is refused.
    await ok(await s.admin('PATCH', `/api/v1/return-reasons/${made.id}`, { active: false }), 200);
    const offered = (await ok(await caller(t, s.tenant, s.tenant.storefrontToken)('GET', '/api/v1/return-reasons?limit=100'), 200)) as Array<{ code: string }>;
    expect(offered.map((r) => r.code)).not.toContain('arrived_late');
    expect(((await ok(await customer.api('GET', '/api/v1/return-reasons?limit=100'), 200)) as Array<{ code: string }>).map((r) => r.code)).toEqual(expect.arrayContaining(['wrong_size', 'changed_mind']));
    const inactive = (await ok(await s.admin('GET', '/api/v1/return-reasons?filter[active]=false'), 200)) as Array<{ code: string }>;
    expect(inactive.map((r) => r.code)).toEqual(['arrived_late']);
    const refused = expectError(await ask('arrived_late'), 422, 'RETURN_REASON_NOT_FOUND');
    expect(refused.details).toEqual([expect.objectContaining({ path: 'body.reason_code', reason_code: 'arrived_late' })]);

    // On again: accepted.
    await ok(await s.admin('PATCH', `/api/v1/return-reasons/${made.id}`, { active: true }), 200);
    const first = await ok(await ask('arrived_late'), 201);
    expect(first.lines[0].reason_code).toBe('arrived_late');

    // A code is the store's once; bad input is 400; another store's reason is 404.
    expectError(await s.admin('PATCH', `/api/v1/return-reasons/${made.id}`, { code: 'wrong_size' }), 409, 'RETURN_REASON_EXISTS');
    expectError(await s.admin('POST', '/api/v1/return-reasons', { code: 'wrong_size', label: 'Again' }), 409, 'RETURN_REASON_EXISTS');
    expectError(await s.admin('PATCH', `/api/v1/return-reasons/${made.id}`, { code: 'Not A Code' }), 400, 'VALIDATION_ERROR');
    expectError(await s.admin('PATCH', `/api/v1/return-reasons/${made.id}`, { active: 'no' }), 400, 'VALIDATION_ERROR');
    const other = await shop(t, false);
    expectError(await other.admin('PATCH', `/api/v1/return-reasons/${made.id}`, { active: false }), 404, 'RETURN_REASON_NOT_FOUND');
    expectError(await other.admin('DELETE', `/api/v1/return-reasons/${made.id}`), 404, 'RETURN_REASON_NOT_FOUND');
    expectError(await s.admin('PATCH', `/api/v1/return-reasons/${MISSING}`, { label: 'x' }), 404, 'RETURN_REASON_NOT_FOUND');
    expect((await ok(await s.admin('GET', `/api/v1/return-reasons?filter[active]=true&limit=100`), 200)).map((r: { code: string }) => r.code)).toContain('arrived_late');

    // Removed: no longer accepted; the return that named it keeps its code.
    expect((await s.admin('DELETE', `/api/v1/return-reasons/${made.id}`)).statusCode).toBe(204);
    expectError(await s.admin('DELETE', `/api/v1/return-reasons/${made.id}`), 404, 'RETURN_REASON_NOT_FOUND');
    expectError(await ask('arrived_late'), 422, 'RETURN_REASON_NOT_FOUND');
    expect((await ok(await s.admin('GET', `/api/v1/returns/${first.id}`), 200)).lines[0].reason_code).toBe('arrived_late');
  });
});
