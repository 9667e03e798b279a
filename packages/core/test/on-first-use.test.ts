import { describe, expect, it } from 'vitest';
import { onFirstUse } from '../src/index.js';

describe('onFirstUse', () => {
  it('loads on the first call, not before, and keeps what it loaded', async () => {
    let loads = 0;
    const library = onFirstUse(() => Promise.resolve({ loaded: ++loads }));
    expect(loads).toBe(0);
    const [a, b] = await Promise.all([library(), library()]);
    expect(await library()).toBe(a);
    expect(b).toBe(a);
    expect(loads).toBe(1);
  });

  it('does not keep a load that failed: the next call tries again', async () => {
    let loads = 0;
    const library = onFirstUse(() => (++loads === 1 ? Promise.reject(new Error('not installed')) : Promise.resolve('loaded')));
    await expect(library()).rejects.toThrow('not installed');
    expect(await library()).toBe('loaded');
    expect(await library()).toBe('loaded');
    expect(loads).toBe(2);
  });

  it('takes a synchronous load (a require) too; one that throws is tried again', () => {
    let loads = 0;
    const library = onFirstUse(() => {
      if (++loads === 1) throw new Error('not installed');
      return { loaded: loads };
    });
    expect(() => library()).toThrow('not installed');
    const first = library();
    expect(library()).toBe(first);
    expect(loads).toBe(2);
  });
});
