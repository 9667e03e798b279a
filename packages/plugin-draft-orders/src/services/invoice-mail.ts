import type { DraftOrder } from '../entities/draft-order.js';

/** `1234` PEN → `PEN 12.34`: the currency's own number of decimals, plain ASCII (any mail reader shows it). */
export function formatMoney(minor: number, currency: string): string {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  return `${currency} ${(minor / 10 ** digits).toFixed(digits)}`;
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The invoice e-mail: subject, plain text and HTML, each with the lines, the total and the link to pay. */
export function invoiceMail(input: { store: string; draft: DraftOrder; orderNumber: number; link: string; expiresAt: Date; subject?: string; message?: string }) {
  const { store, draft, link } = input;
  const money = (n: number) => formatMoney(n, draft.currency.trim());
  const rows = draft.lines.map((l) => `${l.quantity} x ${l.variant_title && l.variant_title !== l.title ? `${l.title} (${l.variant_title})` : l.title}: ${money(l.total)}`);
  const totals = [
    `Subtotal: ${money(draft.subtotal)}`,
    ...(draft.discountTotal > 0 ? [`Discount: -${money(draft.discountTotal)}`] : []),
    ...(draft.shippingTotal > 0 ? [`Shipping: ${money(draft.shippingTotal)}`] : []),
    ...(draft.taxTotal > 0 ? [`${draft.pricesIncludeTax ? 'Tax included' : 'Tax'}: ${money(draft.taxTotal)}`] : []),
    `Total: ${money(draft.total)}`,
  ];
  const until = input.expiresAt.toISOString().slice(0, 10);
  const subject = input.subject ?? `${store}: your order #${input.orderNumber}, ready to pay`;
  return {
    subject,
    text: [
      'Hello,',
      '',
      ...(input.message ? [input.message, ''] : []),
      `${store} prepared your order #${input.orderNumber}:`,
      '',
      ...rows,
      '',
      ...totals,
      '',
      'Pay it here:',
      link,
      '',
      `The link works until ${until}.`,
    ].join('\n'),
    html: [
      '<p>Hello,</p>',
      ...(input.message ? [`<p>${escapeHtml(input.message)}</p>`] : []),
      `<p>${escapeHtml(store)} prepared your order #${input.orderNumber}:</p>`,
      `<ul>${rows.map((r) => `<li>${escapeHtml(r)}</li>`).join('')}</ul>`,
      `<p>${totals.map(escapeHtml).join('<br>')}</p>`,
      `<p><a href="${escapeHtml(link)}">Pay your order</a></p>`,
      `<p>The link works until ${escapeHtml(until)}.</p>`,
    ].join('\n'),
  };
}
