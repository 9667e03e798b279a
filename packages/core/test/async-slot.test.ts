import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { AsyncSlot, TenantContext } from '../src/index.js';

describe('AsyncSlot', () => {
  it('follows a call through what it awaits, and is unset outside it', async () => {
    const slot = new AsyncSlot<string>('test.follows');
    expect(slot.get()).toBeUndefined();
    const seen = await slot.run('a', async () => {
      await sleep(1);
      const inner = await new Promise<string | undefined>((resolve) => setImmediate(() => resolve(slot.get())));
      return [slot.get(), inner];
    });
    expect(seen).toEqual(['a', 'a']);
    expect(slot.get()).toBeUndefined();
  });

  it('keeps concurrent calls apart', async () => {
    const slot = new AsyncSlot<number>('test.concurrent');
    const seen = await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        slot.run(n, async () => {
          await sleep(6 - n);
          return slot.get();
        }),
      ),
    );
    expect(seen).toEqual([1, 2, 3, 4, 5]);
  });

  it('sets one slot without touching another, core\'s request scope included, and unsets with undefined', async () => {
    const first = new AsyncSlot<string>('test.first');
    const second = new AsyncSlot<string>('test.second');
    await TenantContext.run({ tenantId: 't-1' }, () =>
      first.run('outer', async () => {
        await second.run('inner', async () => {
          await sleep(1);
          expect([first.get(), second.get(), TenantContext.current()?.tenantId]).toEqual(['outer', 'inner', 't-1']);
          await first.run(undefined, async () => {
            await sleep(1);
            expect([first.get(), second.get()]).toEqual([undefined, 'inner']);
          });
          expect(first.get()).toBe('outer');
        });
        expect([first.get(), second.get(), TenantContext.current()?.tenantId]).toEqual(['outer', undefined, 't-1']);
      }),
    );
    expect(TenantContext.current()).toBeUndefined();
  });

  it('two slots of the same name are two slots', async () => {
    const one = new AsyncSlot<string>('test.same');
    const other = new AsyncSlot<string>('test.same');
    await one.run('x', async () => expect(other.get()).toBeUndefined());
  });
});
