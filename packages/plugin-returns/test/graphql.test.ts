import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fulfilledOrder, product, returnsApp, shop, shopper, type Shop } from './helpers.js';

// GraphQL: a customer asks for a return and sees it on their order; staff read returns with
// returns.read; another store's ids find nothing.
let t: TestApp;
let s: Shop;
beforeAll(async () => {
  t = await returnsApp();
  s = await shop(t, true);
});
afterAll(async () => t?.close());

async function gql(headers: Record<string, string>, query: string, variables: Record<string, unknown> = {}) {
  const res = await t.request({ method: 'POST', url: '/graphql', headers, payload: { query, variables } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { data: any; errors?: Array<{ message: string; extensions: { code: string } }> };
}

describe('returns over GraphQL', () => {
  it('a customer asks for one of their order and reads it there; staff list them; another store sees none', async () => {
    const customer = await shopper(t, s);
    const a = await product(s, 2360, 5);
    const o = await fulfilledOrder(t, s, { customer_id: customer.id, email: customer.email, line_items: [{ variant_id: a.variantId, quantity: 2 }] });
    const mine = s.tenant.headers(customer.token);
    const asked = await gql(mine, `mutation ($input: ReturnRequestInput!) { requestReturn(input: $input) { id name kind status lines { lineItemId quantity reasonCode } } }`, {
      input: { orderId: o.id, reasonCode: 'changed_mind', lines: [{ lineItemId: o.line_items[0].id, quantity: 1 }] },
    });
    expect(asked.errors).toBeUndefined();
    expect(asked.data.requestReturn).toMatchObject({ kind: 'return', status: 'requested', lines: [{ lineItemId: o.line_items[0].id, quantity: 1, reasonCode: 'changed_mind' }] });
    const id = asked.data.requestReturn.id;

    const onOrder = await gql(mine, '{ orders { edges { node { id returns { id status } } } } myReturns { edges { node { id name } } } }');
    expect(onOrder.data.orders.edges.find((e: any) => e.node.id === o.id).node.returns).toEqual([{ id, status: 'requested' }]);
    expect(onOrder.data.myReturns.edges.map((e: any) => e.node.id)).toEqual([id]);
    // Staff fields are not the customer's.
    expect((await gql(mine, `{ return(id: "${id}") { id } }`)).errors?.[0].extensions.code).toBe('FORBIDDEN');

    const bad = await gql(mine, `mutation { requestReturn(input: { orderId: "${o.id}", reasonCode: "changed_mind", lines: [{ lineItemId: "${o.line_items[0].id}", quantity: 5 }] }) { id } }`);
    expect(bad.errors?.[0].extensions.code).toBe('RETURN_QUANTITY_EXCEEDED');

    const staff = await gql(s.tenant.headers(), `query ($order: ID!) { returns(orderId: $order) { edges { node { id name refundAmount lines { title } } } } }`, { order: o.id });
    expect(staff.data.returns.edges.map((e: any) => e.node.id)).toEqual([id]);

    const other = await shop(t, true);
    const elsewhere = await gql(other.tenant.headers(), `{ return(id: "${id}") { id } returns { edges { node { id } } } }`);
    expect(elsewhere.data).toEqual({ return: null, returns: { edges: [] } });
  });
});
