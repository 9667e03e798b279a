import type { AbandonedCart } from '../entities/abandoned-cart.js';

/** `1234` USD → `$12.34`; the currency's own number of decimals. */
export function formatMoney(cents: number, currency: string): string {
  const format = new Intl.NumberFormat('en', { style: 'currency', currency });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(cents / 10 ** digits);
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The recovery e-mail: subject, plain text and HTML, each with the recovery link. */
export function reminderMail(input: { store: string; record: AbandonedCart; link: string; expiresAt: Date }) {
  const { store, record, link, expiresAt } = input;
  const items = `${record.itemCount} item${record.itemCount === 1 ? '' : 's'}`;
  const value = formatMoney(record.valueCents, record.currency.trim());
  const until = expiresAt.toISOString().replace('T', ' ').slice(0, 16);
  return {
    subject: `${store}: you left ${items} in your cart`,
    text: [
      'Hello,',
      '',
      `You left ${items} (${value}) in your cart at ${store}.`,
      'Pick up where you left off:',
      '',
      link,
      '',
      `The link works until ${until} UTC.`,
    ].join('\n'),
    html: [
      `<p>Hello,</p>`,
      `<p>You left ${escapeHtml(items)} (${escapeHtml(value)}) in your cart at ${escapeHtml(store)}.</p>`,
      `<p><a href="${escapeHtml(link)}">Return to your cart</a></p>`,
      `<p>The link works until ${escapeHtml(until)} UTC.</p>`,
    ].join('\n'),
  };
}
