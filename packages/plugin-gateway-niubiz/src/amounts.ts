/** Minor units (céntimos) as the decimal text Niubiz reads: 9500 → "95.00". Integer arithmetic only. */
export function toDecimal(amount: number): string {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new Error(`Not an amount in minor units: ${amount}`);
  return `${Math.floor(amount / 100)}.${String(amount % 100).padStart(2, '0')}`;
}
