import { AppError, definePlugin, type Tx } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_CANCEL_GUARD, Orders, type OrderCancelGuard } from '../src/index.js';
import { caller, createOrder, createVariants, getOrder, inTenant, levelOf, ORDERS, ordersApp, stockUp } from './helpers.js';

/** What the guards saw: the order as locked, before the cancel changed it. */
const seen: Array<{ guard: string; status: string; locked: boolean }> = [];

/** Whether this transaction holds a row lock on orders (the one `select … for update` takes). */
async function isLocked(tx: Tx): Promise<boolean> {
  const [row] = await tx.em.execute<Array<{ locked: boolean }>>(
    `select exists (select 1 from pg_locks l join pg_class c on c.oid = l.relation
       where c.relname = 'orders_order' and l.pid = pg_backend_pid() and l.mode = 'RowShareLock') as locked`,
  );
  return Boolean(row.locked);
}

const refusing: OrderCancelGuard = {
  async check(tx, order) {
    seen.push({ guard: 'refusing', status: order.status, locked: await isLocked(tx) });
    if (order.customerEmail.startsWith('busy')) {
      throw AppError.conflict('A payment of this order is in progress', 'PAYMENT_IN_PROGRESS', [{ path: 'params.id', message: 'wait for it', order_id: order.id }]);
    }
  },
};
const watching: OrderCancelGuard = { check: (_tx, order) => void seen.push({ guard: 'watching', status: order.status, locked: true }) };

/** A plugin registering two guards, as the payments plugin does. */
const guards = definePlugin({
  name: 'cancel-guards',
  dependsOn: ['orders'],
  register(container) {
    container.register(ORDER_CANCEL_GUARD, { useValue: refusing });
    container.register(ORDER_CANCEL_GUARD, { useValue: watching });
  },
});

let t: TestApp;
let shop: TestTenant;
let warehouse: string;
beforeAll(async () => {
  t = await ordersApp({ plugins: [guards] });
  shop = await t.createTenant();
  warehouse = await stockUp(t, shop, [], 0);
});
afterAll(async () => t?.close());

describe('cancel guards', () => {
  it('every registered guard is asked with the locked order; a refusal answers its error and changes nothing', async () => {
    const [v] = await createVariants(t, shop, [1500]);
    await stockUp(t, shop, [v.id], 5, warehouse);
    const order = await createOrder(t, shop, [{ variant_id: v.id, quantity: 2 }], { customer_email: 'busy@example.com' });
    expect(await levelOf(t, shop, warehouse, v.id)).toMatchObject({ reserved: 2 });
    seen.length = 0;
    const res = await caller(t, shop)('POST', `${ORDERS}/${order.id}/cancel`, { reason: 'changed mind' });
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'PAYMENT_IN_PROGRESS', details: [{ order_id: order.id }] });
    expect(seen).toEqual([{ guard: 'refusing', status: 'pending', locked: true }]);
    const read = await getOrder(t, shop, order.id);
    expect(read.status).toBe('pending');
    expect(read.history).toEqual([]);
    expect(await levelOf(t, shop, warehouse, v.id)).toMatchObject({ reserved: 2 });
  });

  it('when every guard agrees the order is cancelled', async () => {
    const [v] = await createVariants(t, shop, [900]);
    const order = await createOrder(t, shop, [{ variant_id: v.id, quantity: 1 }], { customer_email: 'calm@example.com' });
    seen.length = 0;
    const res = await caller(t, shop)('POST', `${ORDERS}/${order.id}/cancel`, {});
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.status).toBe('cancelled');
    expect(seen.map((s) => [s.guard, s.status])).toEqual([['refusing', 'pending'], ['watching', 'pending']]);
  });
});

describe('addNote', () => {
  it("appends a note to the order's history without moving it", async () => {
    const [v] = await createVariants(t, shop, [700]);
    const order = await createOrder(t, shop, [{ variant_id: v.id, quantity: 1 }], { customer_email: 'calm@example.com' });
    await inTenant(t, shop, (tx) => t.app.container.resolve(Orders).addNote(tx, order.id, 'late payment pay_1 refunded'));
    const read = await getOrder(t, shop, order.id);
    expect(read.status).toBe('pending');
    expect(read.history).toEqual([{ action: 'note', from: 'pending', to: 'pending', note: 'late payment pay_1 refunded', at: expect.any(String) }]);
    const other = await t.createTenant();
    await expect(inTenant(t, other, (tx) => t.app.container.resolve(Orders).addNote(tx, order.id, 'x'))).rejects.toMatchObject({ code: 'ORDER_NOT_FOUND' });
  });
});
