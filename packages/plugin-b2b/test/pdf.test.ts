import { createRequire } from 'node:module';
import path from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import type { B2BCustomer, Quote } from '../src/index.js';
import { quotePdf } from '../src/index.js';

const standardFontDataUrl = path.join(path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')), 'standard_fonts/');
const at = new Date('2026-11-24T15:00:00.000Z');

async function textOf(pdf: Buffer): Promise<string> {
  const doc = await getDocument({ data: new Uint8Array(pdf), standardFontDataUrl, isEvalSupported: false }).promise;
  const content = await (await doc.getPage(1)).getTextContent();
  await doc.destroy();
  return content.items.map((i) => ('str' in i ? i.str : '')).join('\n');
}

const customer = { companyName: 'Ñandú 😀 Trading 株式会社', ruc: '20100070970', email: 'a@b.pe', phone: null } as unknown as B2BCustomer;
const quote = {
  number: 'QT-000007', currency: 'JPY', sentAt: at, validUntil: new Date(at.getTime() + 86_400_000), validDays: 1, notes: 'Línea 1\nLínea 2 — “ok”',
  subtotal: 1500, discount: 500, total: 1000,
  items: [{ variant_id: 'v', product_id: 'p', title: 'Té verde 🍵', sku: null, quantity: 2, catalog_price: 750, unit_price: 500, total: 1000, rule_id: null }],
} as unknown as Quote;

describe('the quote PDF', () => {
  it('prints what the standard fonts cannot as "?" instead of failing; currencies keep their own decimals', async () => {
    const text = await textOf(await quotePdf(quote, customer, { name: 'Tienda' }, at));
    expect(text).toContain('Ñandú ? Trading ????');
    expect(text).toContain('Té verde ?');
    expect(text).toContain('JPY 1,000'); // no minor unit in yen
    expect(text).not.toContain('JPY 10.00');
    expect(text).toContain('Línea 1 Línea 2 — “ok”');
    expect(text).toContain('Valid until: 2026-11-25');
  });
});
