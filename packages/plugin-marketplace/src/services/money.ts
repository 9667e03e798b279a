/** A percentage with at most two decimals (12.5) as hundredths of a percent (1250): exact integers from here on. */
export const pctToBps = (pct: number): number => Math.round(pct * 100);

/** Hundredths of a percent back to the percentage the API shows (1250 → 12.5). */
export const bpsToPct = (bps: number): number => bps / 100;

/**
 * The commission on `amount` minor units at `bps` hundredths of a percent, rounded half up to the
 * minor unit in integers (12.5 % of 999 is 124.875: 125). The vendor's payout is the rest, so the
 * two always add up to the amount.
 */
export function commissionOf(amount: number, bps: number): number {
  return Number((BigInt(amount) * BigInt(bps) + 5000n) / 10000n);
}
