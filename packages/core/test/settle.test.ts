import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, definePlugin, Jobs, OutboxRelay } from '../src/index.js';
import { createTestApp, type TestApp, type TestTenant } from '../src/testing/index.js';

/**
 * `TestApp.settle()`: a test waits for the background work its request set off (events relayed,
 * the jobs they queue, the events those jobs publish, and so on) and then reads the outcome at once.
 */

/** What the jobs did, in order. */
const ran: string[] = [];
let release: () => void = () => undefined;

const chainPlugin = definePlugin({
  name: 'chain',
  events: ['chain.started', 'chain.relayed'],
  jobs: {
    // Takes its time, then publishes the next event: settle must wait through both hops.
    'chain.relay': async (data: { id: string }, { container }) => {
      await new Promise((r) => setTimeout(r, 200));
      await container.resolve(Database).tenant(async (tx) => void tx.publish('chain.relayed', data));
      ran.push(`relay ${data.id}`);
    },
    'chain.finish': (data: { id: string }) => void ran.push(`finish ${data.id}`),
    'chain.stuck': () => new Promise<void>((resolve) => (release = resolve)),
  },
  onReady({ container }) {
    const relay = container.resolve(OutboxRelay);
    relay.queueOn('chain.started', 'chain.relay');
    relay.queueOn('chain.relayed', 'chain.finish');
  },
});

const start = (t: TestApp, tenant: TestTenant, id: string) =>
  t.app.container.resolve(Database).tenant(async (tx) => void tx.publish('chain.started', { id }), tenant.id);

describe('settle, with workers', () => {
  let t: TestApp;
  let shop: TestTenant;
  beforeAll(async () => {
    t = await createTestApp({ plugins: [chainPlugin], workers: true });
    shop = await t.createTenant();
  }, 60_000);
  afterAll(async () => t?.close());

  it('returns once an event, the job it queued, that job\'s event and the next job have all run', async () => {
    await start(t, shop, 'a');
    expect(ran).toEqual([]);
    await t.settle();
    expect(ran).toEqual(['relay a', 'finish a']);
  });

  it('does not wait for a job queued for later', async () => {
    const jobs = t.app.container.resolve(Jobs);
    await jobs.add('chain.finish', { id: 'later' }, { delayMs: 60_000 });
    const began = Date.now();
    await t.settle();
    expect(Date.now() - began).toBeLessThan(2_000);
    expect(ran).not.toContain('finish later');
    expect((await jobs.counts()).delayed).toBe(1);
  });

  it('rejects after its timeout naming what is left, and settles once the work is done', async () => {
    await t.app.container.resolve(Jobs).add('chain.stuck', {});
    await expect(t.settle({ timeoutMs: 500 })).rejects.toThrow(/^not settled after 500 ms: 0 job\(s\) waiting, 1 running, 0 committed event\(s\) not yet dispatched$/);
    release();
    await t.settle();
    expect((await t.app.container.resolve(Jobs).counts()).active).toBe(0);
  });
});

describe('settle, without workers', () => {
  let t: TestApp;
  afterAll(async () => t?.close());

  it('says that nothing runs the jobs: the event\'s dispatch waits', async () => {
    t = await createTestApp({ plugins: [chainPlugin] });
    await start(t, await t.createTenant(), 'b');
    // The relay hands the event over and the job is queued; on a busy machine that may take a while.
    const jobs = t.app.container.resolve(Jobs);
    for (const end = Date.now() + 10_000; ((await jobs.counts()).waiting ?? 0) < 1 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
    await expect(t.settle({ timeoutMs: 200 })).rejects.toThrow(
      /^not settled after 200 ms: 1 job\(s\) waiting, 0 running, \d+ committed event\(s\) not yet dispatched; this app runs no job workers: createTestApp\(\{ workers: true \}\)$/,
    );
  });
});
