import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SWEEP_JOB } from '../src/index.js';
import { abandonedApp, cartOf, eventually, listAll, MINUTE, shop, TestClock } from './helpers.js';

const clock = new TestClock();
let t: TestApp;
beforeAll(async () => {
  // Workers on: the plugin's background hook queues the sweep job every second.
  t = await abandonedApp({ clock, workers: true, env: { QHATU_ABANDONED_AFTER_MINUTES: '30', QHATU_ABANDONED_SWEEP_SECONDS: '1' } });
});
afterAll(async () => t?.close());

describe('the scheduled sweep job', () => {
  it('is declared and queued periodically; it records carts idle for QHATU_ABANDONED_AFTER_MINUTES', async () => {
    expect(t.app.plugins.find((p) => p.name === 'abandoned-carts')?.jobs?.[SWEEP_JOB]).toBeDefined();
    const a = await shop(t);
    const b = await shop(t);
    const idle = await cartOf(a, 2, 'idle@example.com');
    const other = await cartOf(b, 1);
    clock.advance(29 * MINUTE);
    // Several sweeps run meanwhile; nothing is idle for 30 minutes yet.
    await new Promise((r) => setTimeout(r, 2500));
    expect((await listAll(a)).data).toEqual([]);
    clock.advance(2 * MINUTE);
    const fresh = await cartOf(a, 1);
    const recorded = await eventually(async () => {
      const { data } = await listAll(a);
      return data.length > 0 ? data : undefined;
    });
    expect(recorded.map((c) => c.cart_id)).toEqual([idle.cartId]);
    expect(recorded[0]).toMatchObject({ status: 'abandoned', email: 'idle@example.com', value_cents: idle.total });
    // Every tenant is swept, each with its own carts only.
    const inB = await eventually(async () => {
      const { data } = await listAll(b);
      return data.length > 0 ? data : undefined;
    });
    expect(inB.map((c) => c.cart_id)).toEqual([other.cartId]);
    // The fresh cart follows once it is idle too.
    clock.advance(31 * MINUTE);
    const both = await eventually(async () => {
      const { data } = await listAll(a);
      return data.length === 2 ? data : undefined;
    });
    expect(both.map((c) => c.cart_id).sort()).toEqual([idle.cartId, fresh.cartId].sort());
  });
});
