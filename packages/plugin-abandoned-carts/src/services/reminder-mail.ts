import type { MailDefinition } from '@qhatu/core';
import type { AbandonedCart } from '../entities/abandoned-cart.js';

/** The reminder, as the store may write it per locale (`/api/v1/mail-texts`, decision 0098). */
export const REMINDER_MAIL: MailDefinition = {
  key: 'abandoned-carts.reminder',
  description: 'The reminder staff send to the shopper of an abandoned cart, with the link that restores it',
  variables: {
    store: "The store's name",
    link: 'The recovery link: it restores the cart',
    item_count: 'How many items the cart holds',
    value: 'What the cart is worth (S/ 25.00)',
    expires_at: 'When the link stops working, in UTC (2026-05-01 14:30)',
  },
};

/** `1234` USD → `$12.34`; the currency's own number of decimals. */
export function formatMoney(cents: number, currency: string): string {
  const format = new Intl.NumberFormat('en', { style: 'currency', currency });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(cents / 10 ** digits);
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The values of the reminder's placeholders. */
export function reminderVariables(input: { store: string; record: AbandonedCart; link: string; expiresAt: Date }) {
  return {
    store: input.store,
    link: input.link,
    item_count: input.record.itemCount,
    value: formatMoney(input.record.valueCents, input.record.currency.trim()),
    expires_at: input.expiresAt.toISOString().replace('T', ' ').slice(0, 16),
  };
}

/** The built-in recovery e-mail (a store without a text of its own sends it): subject, plain text and HTML, each with the recovery link. */
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
