/**
 * The currencies of PayPal's REST API currency table (RUB left out: PayPal stopped serving Russia
 * in 2022). BRL, CNY and MYR are taken by PayPal accounts of their own country only; PayPal
 * refuses them elsewhere and the payment is failed with its reason.
 */
export const PAYPAL_CURRENCIES = [
  'USD', 'EUR', 'AUD', 'BRL', 'CAD', 'CHF', 'CNY', 'CZK', 'DKK', 'GBP', 'HKD', 'HUF',
  'ILS', 'JPY', 'MXN', 'MYR', 'NOK', 'NZD', 'PHP', 'PLN', 'SEK', 'SGD', 'THB', 'TWD',
] as const;

/** ISO 4217 decimals of Qhatu's minor units, where not 2. */
const ISO_DECIMALS: Record<string, number> = { JPY: 0 };
/** PayPal refuses decimals for these (HUF and TWD although ISO 4217 gives them 2). */
const PAYPAL_DECIMALS: Record<string, number> = { JPY: 0, HUF: 0, TWD: 0 };

const decimals = (currency: string) => ({ iso: ISO_DECIMALS[currency] ?? 2, paypal: PAYPAL_DECIMALS[currency] ?? 2 });

/**
 * Minor units as PayPal's decimal string (`5000` USD → `"50.00"`, `1500` JPY → `"1500"`,
 * `150000` HUF → `"1500"`), with integer arithmetic only. Null when PayPal cannot carry the amount
 * exactly (HUF or TWD with fillér or cents).
 */
export function toPayPalValue(amount: number, currency: string): string | null {
  if (!Number.isSafeInteger(amount) || amount < 0) return null;
  const { iso, paypal } = decimals(currency);
  const drop = 10 ** (iso - paypal);
  if (amount % drop !== 0) return null;
  const units = amount / drop;
  if (paypal === 0) return String(units);
  const scale = 10 ** paypal;
  return `${Math.floor(units / scale)}.${String(units % scale).padStart(paypal, '0')}`;
}

/** PayPal's decimal string as Qhatu minor units; null when it is not a plain amount of the currency. */
export function fromPayPalValue(value: unknown, currency: string): number | null {
  if (typeof value !== 'string') return null;
  const match = /^(\d{1,15})(?:\.(\d+))?$/.exec(value);
  if (!match) return null;
  const { iso, paypal } = decimals(currency);
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > paypal) return null;
  const units = Number(match[1]) * 10 ** paypal + Number(fraction.padEnd(paypal, '0') || '0');
  const minor = units * 10 ** (iso - paypal);
  return Number.isSafeInteger(minor) ? minor : null;
}

/** An amount as people read it, for failure reasons: `50.00 USD`. */
export function display(amount: number, currency: string): string {
  const { iso } = decimals(currency);
  if (iso === 0) return `${amount} ${currency}`;
  const scale = 10 ** iso;
  return `${Math.floor(amount / scale)}.${String(amount % scale).padStart(iso, '0')} ${currency}`;
}
