/** Minor units (céntimos) as the decimal text Niubiz reads: 9500 → "95.00". Integer arithmetic only. */
export function toDecimal(amount: number): string {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new Error(`Not an amount in minor units: ${amount}`);
  return `${Math.floor(amount / 100)}.${String(amount % 100).padStart(2, '0')}`;
}

/** Milliseconds since 2024-01-01 UTC stay within Niubiz's 12 digits until 2055. */
const EPOCH = Date.UTC(2024, 0, 1);
let last = 0;

/**
 * A purchase number for a new Niubiz session: numeric, at most 12 digits, unique per merchant.
 * It is the time in milliseconds, never repeated by this process even within one millisecond.
 */
export function nextPurchaseNumber(now = Date.now()): string {
  last = Math.max(now - EPOCH, last + 1);
  return String(last);
}
