/**
 * The tax in an amount, rounded half up to the minor unit (decision 0039): added on top when
 * prices exclude tax (`amount × rate / 10000`), taken out of it when they include it
 * (`amount × rate / (10000 + rate)`). Integer arithmetic, so large amounts stay exact.
 */
export function taxOf(amount: number, rate: number, inclusive: boolean): number {
  if (amount <= 0 || rate <= 0) return 0;
  const num = BigInt(amount) * BigInt(rate);
  const den = BigInt(inclusive ? 10_000 + rate : 10_000);
  return Number((2n * num + den) / (2n * den));
}
