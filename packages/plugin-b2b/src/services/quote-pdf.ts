import type { PDFFont, PDFPage } from 'pdf-lib';
import type { B2BCustomer } from '../entities/b2b-customer.js';
import type { Quote } from '../entities/quote.js';

/** What the document says about the seller. */
export interface Seller {
  name: string;
}

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 50;

// The standard fonts speak WinAnsi: Latin-1 and a few typographic marks; anything else prints as '?'.
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
export function winAnsi(text: string): string {
  return [...text.normalize('NFC').replace(/[\r\n\t]+/g, ' ')].map((c) => (/[\x20-\x7e\xa0-\xff]/.test(c) || WIN_ANSI_EXTRA.has(c) ? c : '?')).join('');
}

/** Minor units as the currency writes them: `PEN 1,234.50`. */
export function money(amount: number, currency: string): string {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  const value = (amount / 10 ** digits).toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return `${currency} ${value}`;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/**
 * The quote as a PDF (A4): the seller, the company and its RUC, each item with its list price,
 * the subtotal, the price-list discount, the total, the notes and how long the offer holds.
 */
export async function quotePdf(quote: Quote, customer: B2BCustomer, seller: Seller, at: Date): Promise<Buffer> {
  // Loaded when the first quote is printed, not at every start (a tenth of a second of the store's start).
  const { PDFDocument, StandardFonts, rgb } = await import('pdf-lib');
  const GREY = rgb(0.35, 0.35, 0.35);
  const doc = await PDFDocument.create();
  doc.setTitle(`Quote ${quote.number}`);
  doc.setAuthor(winAnsi(seller.name));
  doc.setCreator('Qhatu');
  doc.setProducer('Qhatu');
  doc.setCreationDate(at);
  doc.setModificationDate(at);
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);

  let page: PDFPage = doc.addPage(A4);
  let y = A4[1] - MARGIN;
  const write = (text: string, x: number, size = 10, font: PDFFont = regular, color = rgb(0, 0, 0)) =>
    page.drawText(winAnsi(text), { x, y, size, font, color });
  const right = (text: string, xRight: number, size = 10, font: PDFFont = regular) =>
    page.drawText(winAnsi(text), { x: xRight - font.widthOfTextAtSize(winAnsi(text), size), y, size, font });
  const fit = (text: string, width: number, size = 10) => {
    let t = winAnsi(text);
    while (t.length > 1 && regular.widthOfTextAtSize(t, size) > width) t = `${t.slice(0, -2)}…`;
    return t;
  };
  const line = () => page.drawLine({ start: { x: MARGIN, y: y + 4 }, end: { x: A4[0] - MARGIN, y: y + 4 }, thickness: 0.5, color: GREY });

  write(seller.name, MARGIN, 18, bold);
  right(`QUOTE ${quote.number}`, A4[0] - MARGIN, 14, bold);
  y -= 18;
  write(`Date: ${day(quote.sentAt ?? at)}`, MARGIN, 10, regular, GREY);
  right(`Valid until: ${quote.validUntil ? day(quote.validUntil) : `${quote.validDays} days after sending`}`, A4[0] - MARGIN);
  y -= 30;
  write('Quote for', MARGIN, 9, bold, GREY);
  y -= 14;
  write(customer.companyName, MARGIN, 12, bold);
  y -= 15;
  write(`RUC: ${customer.ruc}`, MARGIN);
  y -= 13;
  write(customer.email, MARGIN);
  if (customer.phone) {
    y -= 13;
    write(customer.phone, MARGIN);
  }
  y -= 30;

  const cols = { item: MARGIN, qty: 360, unit: 450, total: A4[0] - MARGIN };
  const header = () => {
    write('Item', cols.item, 9, bold);
    right('Qty', cols.qty, 9, bold);
    right('Unit price', cols.unit, 9, bold);
    right('Total', cols.total, 9, bold);
    y -= 6;
    line();
    y -= 12;
  };
  header();
  for (const item of quote.items) {
    if (y < MARGIN + 120) {
      page = doc.addPage(A4);
      y = A4[1] - MARGIN;
      header();
    }
    write(fit(item.sku ? `${item.title} (${item.sku})` : item.title, cols.qty - cols.item - 50), cols.item);
    right(String(item.quantity), cols.qty);
    right(money(item.unit_price, quote.currency), cols.unit);
    right(money(item.total, quote.currency), cols.total);
    y -= 15;
  }
  line();
  y -= 14;
  const sum = (label: string, amount: number, font: PDFFont = regular) => {
    right(label, cols.unit, 10, font);
    right(money(amount, quote.currency), cols.total, 10, font);
    y -= 15;
  };
  sum('Subtotal', quote.subtotal);
  sum('Discount', quote.discount);
  sum('Total', quote.total, bold);
  y -= 15;
  if (quote.notes) {
    write('Notes', MARGIN, 9, bold, GREY);
    y -= 13;
    for (const chunk of wrap(quote.notes, (t) => regular.widthOfTextAtSize(winAnsi(t), 10), A4[0] - 2 * MARGIN).slice(0, 12)) {
      write(chunk, MARGIN);
      y -= 13;
    }
    y -= 8;
  }
  write(
    quote.validUntil ? `This quote is valid until ${day(quote.validUntil)} (${quote.validDays} days). Prices in ${quote.currency}.` : `This quote is valid for ${quote.validDays} days once sent. Prices in ${quote.currency}.`,
    MARGIN,
    9,
    regular,
    GREY,
  );
  return Buffer.from(await doc.save());
}

/** Words into lines no wider than `width`. */
function wrap(text: string, measure: (t: string) => number, width: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const next = current ? `${current} ${word}` : word;
    if (measure(next) > width && current) {
      lines.push(current);
      current = word;
    } else current = next;
  }
  if (current) lines.push(current);
  return lines;
}
