/** The prefixes SUNAT gives: 10 natural persons with business, 15 and 17 special cases, 20 companies. */
export const RUC_PREFIXES = ['10', '15', '17', '20'] as const;
const WEIGHTS = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2];

/** The check digit SUNAT computes (modulo 11) over the first ten digits. */
export function rucCheckDigit(firstTen: string): number {
  const sum = WEIGHTS.reduce((acc, w, i) => acc + w * Number(firstTen[i]), 0);
  const digit = 11 - (sum % 11);
  return digit === 11 ? 1 : digit === 10 ? 0 : digit;
}

/** Why a RUC is not valid, or null when it is. */
export function rucProblem(ruc: string): string | null {
  if (!/^\d{11}$/.test(ruc)) return 'must be 11 digits';
  if (!(RUC_PREFIXES as readonly string[]).includes(ruc.slice(0, 2))) return `must begin with ${RUC_PREFIXES.join(', ')}`;
  if (rucCheckDigit(ruc.slice(0, 10)) !== Number(ruc[10])) return 'has a wrong check digit';
  return null;
}
