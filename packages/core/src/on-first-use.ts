/**
 * A library a process may never need, loaded by its first use rather than at start: `load` runs on
 * the first call and its result is kept for every later one. A promise that rejects is not kept,
 * so the call after a failed load tries again.
 *
 * ```ts
 * const stripe = onFirstUse(() => import('stripe').then((module) => module.default));
 * const Stripe = await stripe();
 * ```
 */
export function onFirstUse<T>(load: () => T): () => T {
  let kept: { value: T } | undefined;
  return () => {
    if (kept) return kept.value;
    const value = load();
    const held = { value };
    kept = held;
    if (value instanceof Promise) value.catch(() => kept === held && (kept = undefined));
    return value;
  };
}
