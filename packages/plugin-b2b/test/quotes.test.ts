import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { TestApp } from '@qhatu/core/testing';
import { simpleParser } from 'mailparser';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { B2B, b2bApp, caller, company, MISSING, outbox, priceList, product, quote, signUp, store, type Store } from './helpers.js';

// Quotes are sent over SMTP to a server this test runs; the PDF is read back with pdf.js.
const received: Buffer[] = [];
let refuse = false;
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  onData(stream, _session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      if (refuse) return callback(new Error('mailbox unavailable'));
      received.push(Buffer.concat(chunks));
      callback();
    });
  },
});

let t: TestApp;
let s: Store;
beforeAll(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  t = await b2bApp({ env: { SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}` } });
  s = await store(t);
});
afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

const standardFontDataUrl = path.join(path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')), 'standard_fonts/');

/** The text of every page, and how many pages. */
async function pdfText(data: Buffer): Promise<string> {
  return (await pdfRead(data)).text;
}

async function pdfRead(data: Buffer): Promise<{ text: string; pages: number }> {
  const doc = await getDocument({ data: new Uint8Array(data), standardFontDataUrl, isEvalSupported: false }).promise;
  const pages: string[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const content = await (await doc.getPage(n)).getTextContent();
    pages.push(content.items.map((i) => ('str' in i ? i.str : '')).join('\n'));
  }
  await doc.destroy();
  return { text: pages.join('\n'), pages: pages.length };
}

describe('POST /b2b/quotes', () => {
  it('creates a draft numbered QT-…, priced from the catalog, with notes and every field (201)', async () => {
    const own = await store(t);
    const p = await product(own, 12550, { title: 'Quinua roja', variant: { title: '25 kg', sku: 'QR-25' } });
    const c = await company(own);
    const res = await own.admin('POST', `${B2B}/quotes`, { b2b_customer_id: c.id, items: [{ variant_id: p.variantId, quantity: 3 }], notes: 'Entrega en Callao' });
    expect(res.statusCode).toBe(201);
    const q = res.json().data;
    expect(q).toEqual({
      id: expect.any(String), number: 'QT-000001', status: 'draft', b2b_customer_id: c.id, price_list_id: null, currency: 'PEN',
      items: [{ variant_id: p.variantId, product_id: p.id, title: 'Quinua roja - 25 kg', sku: 'QR-25', quantity: 3, catalog_price: 12550, unit_price: 12550, total: 37650, rule_id: null }],
      subtotal: 37650, discount: 0, total: 37650, notes: 'Entrega en Callao', valid_days: 30, valid_until: null, sent_at: null, sent_by: null,
      accepted_at: null, rejected_at: null, rejection_reason: null, decided_by: null, order_id: null, converted_at: null,
      created_at: expect.any(String), updated_at: expect.any(String),
    });
    expect((await own.admin('GET', `${B2B}/quotes/${q.id}`)).json().data).toEqual(q);
    expect(await outbox(t, 'b2b.quote.created', q.id)).toEqual([expect.objectContaining({ source: '/qhatu/b2b', data: expect.objectContaining({ number: 'QT-000001', total: 37650 }) })]);
    expect((await quote(own, c.id, [{ variant_id: p.variantId, quantity: 1 }])).number).toBe('QT-000002');
  });

  it('merges repeated variants; the price a client might send is not even accepted', async () => {
    const p = await product(s, 1000);
    const c = await company(s);
    const q = await quote(s, c.id, [{ variant_id: p.variantId, quantity: 2 }, { variant_id: p.variantId, quantity: 3 }]);
    expect(q.items).toHaveLength(1);
    expect(q.items[0]).toMatchObject({ quantity: 5, total: 5000 });
    expect((await s.admin('POST', `${B2B}/quotes`, { b2b_customer_id: c.id, items: [{ variant_id: p.variantId, quantity: 1, unit_price: 1 }] })).statusCode).toBe(400);
  });

  it('30 concurrent creates take 30 consecutive numbers, none twice', async () => {
    const own = await store(t);
    const p = await product(own, 500);
    const c = await company(own);
    const answers = await Promise.all(Array.from({ length: 30 }, () => own.admin('POST', `${B2B}/quotes`, { b2b_customer_id: c.id, items: [{ variant_id: p.variantId, quantity: 1 }] })));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(30).fill(201));
    const numbers = answers.map((a) => a.json().data.number).sort();
    expect(numbers).toEqual(Array.from({ length: 30 }, (_, i) => `QT-${String(i + 1).padStart(6, '0')}`));
    // A create that fails takes no number: the next one follows on.
    expect((await own.admin('POST', `${B2B}/quotes`, { b2b_customer_id: c.id, items: [{ variant_id: MISSING, quantity: 1 }] })).statusCode).toBe(422);
    expect((await quote(own, c.id, [{ variant_id: p.variantId, quantity: 1 }])).number).toBe('QT-000031');
    // Numbers are per store.
    const other = await store(t);
    expect((await quote(other, (await company(other)).id, [{ variant_id: (await product(other, 1)).variantId, quantity: 1 }])).number).toBe('QT-000001');
  });

  it('checks the body (400) and its references (422): customer, variants, currency, status', async () => {
    const p = await product(s, 1000);
    const c = await company(s);
    for (const body of [{}, { b2b_customer_id: c.id, items: [] }, { b2b_customer_id: c.id, items: [{ variant_id: p.variantId, quantity: 0 }] }, { b2b_customer_id: c.id, items: [{ variant_id: p.variantId, quantity: 1 }], valid_days: 0 }]) {
      expect((await s.admin('POST', `${B2B}/quotes`, body)).statusCode).toBe(400);
    }
    const other = await store(t);
    const foreignCompany = await company(other);
    const foreignVariant = (await product(other, 100)).variantId;
    const check = async (body: Record<string, unknown>, code: string) => {
      const res = await s.admin('POST', `${B2B}/quotes`, body);
      expect([res.statusCode, res.json().error.code]).toEqual([422, code]);
      return res.json().error;
    };
    await check({ b2b_customer_id: MISSING, items: [{ variant_id: p.variantId, quantity: 1 }] }, 'B2B_CUSTOMER_NOT_FOUND');
    await check({ b2b_customer_id: foreignCompany.id, items: [{ variant_id: p.variantId, quantity: 1 }] }, 'B2B_CUSTOMER_NOT_FOUND');
    const error = await check({ b2b_customer_id: c.id, items: [{ variant_id: p.variantId, quantity: 1 }, { variant_id: foreignVariant, quantity: 1 }] }, 'VARIANT_NOT_FOUND');
    expect(error.details).toEqual([expect.objectContaining({ path: 'body.items.1.variant_id' })]);
    const draft = await product(s, 1000, { status: 'draft' });
    await check({ b2b_customer_id: c.id, items: [{ variant_id: draft.variantId, quantity: 1 }] }, 'VARIANT_NOT_FOUND');
    // A variant priced in another currency before the catalog refused one: written as such data was.
    const dollars = await product(s, 1000);
    const db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    await db.query(`update catalog_variant set currency = 'USD' where id = $1`, [dollars.variantId]).finally(() => db.end());
    await check({ b2b_customer_id: c.id, items: [{ variant_id: p.variantId, quantity: 1 }, { variant_id: dollars.variantId, quantity: 1 }] }, 'MIXED_CURRENCIES');
    const disabled = await company(s, { status: 'disabled' });
    await check({ b2b_customer_id: disabled.id, items: [{ variant_id: p.variantId, quantity: 1 }] }, 'B2B_CUSTOMER_DISABLED');
  });
});

describe('GET /b2b/quotes', () => {
  it('pages newest first; filters by status and company; 404 for unknown and foreign ids', async () => {
    const own = await store(t);
    const p = await product(own, 100);
    const [a, b] = [await company(own), await company(own)];
    const made: Array<{ id: string }> = [];
    for (let i = 0; i < 3; i++) made.push(await quote(own, i < 2 ? a.id : b.id, [{ variant_id: p.variantId, quantity: 1 }]));
    const first = (await own.admin('GET', `${B2B}/quotes?limit=2`)).json();
    expect(first.data.map((q: { number: string }) => q.number)).toEqual(['QT-000003', 'QT-000002']);
    expect(first.meta.pagination.has_next).toBe(true);
    const rest = (await own.admin('GET', `${B2B}/quotes?limit=2&cursor=${first.meta.pagination.cursor}`)).json();
    expect(rest.data.map((q: { number: string }) => q.number)).toEqual(['QT-000001']);
    expect((await own.admin('GET', `${B2B}/quotes`)).json().meta.pagination.limit).toBe(25);
    expect((await own.admin('GET', `${B2B}/quotes?filter[b2b_customer_id]=${b.id}`)).json().data.map((q: { id: string }) => q.id)).toEqual([made[2].id]);
    await own.admin('POST', `${B2B}/quotes/${made[0].id}/send`);
    expect((await own.admin('GET', `${B2B}/quotes?filter[status]=sent`)).json().data.map((q: { id: string }) => q.id)).toEqual([made[0].id]);
    for (const id of [MISSING, made[0].id]) {
      const res = await s.admin('GET', `${B2B}/quotes/${id}`);
      expect([res.statusCode, res.json().error.code]).toEqual([404, 'QUOTE_NOT_FOUND']);
    }
    expect((await s.admin('GET', `${B2B}/quotes`)).json().data.some((q: { id: string }) => made.some((m) => m.id === q.id))).toBe(false);
  });
});

describe('POST /b2b/quotes/:id/send', () => {
  it('moves to sent and e-mails the company the quote as a PDF with company, RUC, items, totals and validity', async () => {
    const p = await product(s, 20000, { title: 'Café de Chanchamayo', variant: { title: '1 kg', sku: 'CAF-1' } });
    const list = await priceList(s, [{ type: 'percentage', value: 10, applies_to: 'all' }]);
    const c = await company(s, { company_name: 'Cafetería Ñuñoa S.A.C.', price_list_id: list });
    const q = await quote(s, c.id, [{ variant_id: p.variantId, quantity: 12 }], { notes: 'Precio especial por volumen', valid_days: 15 });
    const before = received.length;
    const res = await s.admin('POST', `${B2B}/quotes/${q.id}/send`);
    expect(res.statusCode).toBe(200);
    const sent = res.json().data;
    expect(sent).toEqual({ id: q.id, number: q.number, status: 'sent', sent_at: expect.any(String) });
    const read = (await s.admin('GET', `${B2B}/quotes/${q.id}`)).json().data;
    expect(read).toMatchObject({ status: 'sent', sent_at: sent.sent_at, sent_by: expect.any(String) });
    expect(Date.parse(read.valid_until) - Date.parse(sent.sent_at)).toBe(15 * 86_400_000);
    expect(await outbox(t, 'b2b.quote.sent', q.id)).toEqual([expect.objectContaining({ data: expect.objectContaining({ status: 'sent', number: q.number, sent_at: sent.sent_at, total: 216000 }) })]);

    expect(received).toHaveLength(before + 1);
    const mail = await simpleParser(received[before]);
    expect(mail.to && 'text' in mail.to ? mail.to.text : '').toBe(c.email);
    expect(mail.subject).toContain(q.number);
    expect(mail.attachments).toHaveLength(1);
    const [pdf] = mail.attachments;
    expect([pdf.filename, pdf.contentType]).toEqual([`${q.number}.pdf`, 'application/pdf']);
    expect(pdf.content.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pdfText(pdf.content);
    expect(text).toContain('Cafetería Ñuñoa S.A.C.');
    expect(text).toContain(`RUC: ${c.ruc}`);
    expect(text).toContain(`QUOTE ${q.number}`);
    expect(text).toContain('Café de Chanchamayo - 1 kg (CAF-1)');
    expect(text).toContain('PEN 180.00'); // the list's unit price
    expect(text).toContain('PEN 2,400.00'); // subtotal
    expect(text).toContain('PEN 240.00'); // discount
    expect(text).toContain('PEN 2,160.00'); // total
    expect(text).toContain(`Valid until: ${read.valid_until.slice(0, 10)}`);
    expect(text).toContain('Precio especial por volumen');
  });

  it('a quote of many items runs over several pages, every item in it', async () => {
    const own = await store(t);
    const c = await company(own);
    const items = [];
    for (let i = 0; i < 60; i++) items.push({ variant_id: (await product(own, 100 + i)).variantId, quantity: 1 });
    const q = await quote(own, c.id, items);
    const before = received.length;
    expect((await own.admin('POST', `${B2B}/quotes/${q.id}/send`)).statusCode).toBe(200);
    const pdf = (await simpleParser(received[before])).attachments[0].content;
    const { text, pages } = await pdfRead(pdf);
    expect(pages).toBeGreaterThan(1);
    for (const item of q.items) expect(text).toContain(item.title);
    expect(text).toContain('PEN 77.70'); // Σ 100..159 cents
  });

  it('sending twice is 409 INVALID_STATE_TRANSITION and sends nothing', async () => {
    const c = await company(s);
    const q = await quote(s, c.id, [{ variant_id: (await product(s, 100)).variantId, quantity: 1 }]);
    await s.admin('POST', `${B2B}/quotes/${q.id}/send`);
    const before = received.length;
    const again = await s.admin('POST', `${B2B}/quotes/${q.id}/send`);
    expect([again.statusCode, again.json().error.code]).toEqual([409, 'INVALID_STATE_TRANSITION']);
    expect(received).toHaveLength(before);
  });

  it('a quote of a disabled company cannot be sent (409 B2B_CUSTOMER_DISABLED); it stays a draft', async () => {
    const c = await company(s);
    const q = await quote(s, c.id, [{ variant_id: (await product(s, 100)).variantId, quantity: 1 }]);
    await s.admin('PATCH', `${B2B}/customers/${c.id}`, { status: 'disabled' });
    const res = await s.admin('POST', `${B2B}/quotes/${q.id}/send`);
    expect([res.statusCode, res.json().error.code]).toEqual([409, 'B2B_CUSTOMER_DISABLED']);
    expect((await s.admin('GET', `${B2B}/quotes/${q.id}`)).json().data.status).toBe('draft');
  });

  it('when the e-mail cannot be sent: 502 MAIL_DELIVERY_FAILED, still a draft, no event', async () => {
    const c = await company(s);
    const q = await quote(s, c.id, [{ variant_id: (await product(s, 100)).variantId, quantity: 1 }]);
    refuse = true;
    try {
      const res = await s.admin('POST', `${B2B}/quotes/${q.id}/send`);
      expect([res.statusCode, res.json().error.code]).toEqual([502, 'MAIL_DELIVERY_FAILED']);
    } finally {
      refuse = false;
    }
    expect((await s.admin('GET', `${B2B}/quotes/${q.id}`)).json().data).toMatchObject({ status: 'draft', sent_at: null });
    expect(await outbox(t, 'b2b.quote.sent', q.id)).toEqual([]);
    expect((await s.admin('POST', `${B2B}/quotes/${q.id}/send`)).statusCode).toBe(200);
  });

  it('404 for another store\'s quote; 403 for a storefront key or a buyer', async () => {
    const other = await store(t);
    const q = await quote(other, (await company(other)).id, [{ variant_id: (await product(other, 100)).variantId, quantity: 1 }]);
    expect((await s.admin('POST', `${B2B}/quotes/${q.id}/send`)).statusCode).toBe(404);
    const buyer = await signUp(t, other);
    expect((await caller(t, other.tenant, other.tenant.storefrontToken)('POST', `${B2B}/quotes/${q.id}/send`)).statusCode).toBe(403);
    expect((await caller(t, other.tenant, buyer.token)('POST', `${B2B}/quotes/${q.id}/send`)).statusCode).toBe(403);
    expect((await other.admin('GET', `${B2B}/quotes/${q.id}`)).json().data.status).toBe('draft');
  });
});
