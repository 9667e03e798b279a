import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAIL_FROM, loadConfig, Mailer } from '../src/index.js';
import { createTestApp, type TestApp } from '../src/testing/index.js';

const logger = pino({ level: 'silent' });
const at = new Date('2026-03-04T05:06:07.089Z');
const clock = { now: () => at };

/** Headers of a raw RFC 5322 message (folded lines joined), names lower-cased, and the body. */
function parse(raw: string): { headers: Map<string, string>; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  expect(end).toBeGreaterThan(0);
  const headers = new Map<string, string>();
  for (const line of raw.slice(0, end).replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body: raw.slice(end + 4) };
}

/** RFC 2047 encoded-words back to text (whitespace between adjacent words dropped). */
function decodeWords(value: string): string {
  return value.replace(/=\?UTF-8\?([BQ])\?([^?]*)\?=(\s+(?==\?))?/gi, (_m, kind: string, data: string) =>
    kind.toUpperCase() === 'B'
      ? Buffer.from(data, 'base64').toString('utf8')
      : Buffer.from(data.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_h, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8'),
  );
}

function mailerFor(env: Record<string, string>) {
  return new Mailer(loadConfig({ QHATU_ENV: 'development', ...env }), clock, logger);
}

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'qhatu-mail-'));
});
afterAll(async () => rm(dataDir, { recursive: true, force: true }));

describe('Mailer without SMTP_URL', () => {
  it('writes an .eml file per message to <data dir>/mail/<tenant>/', async () => {
    const tenantId = randomUUID();
    const mailer = mailerFor({ QHATU_DATA_DIR: dataDir });
    const sent = await mailer.send({
      tenantId,
      to: 'Ana <ana@example.com>',
      subject: 'Tu carrito te espera – ñandú',
      text: 'Hola Ana\nhttps://shop.example/recover?t=abc',
      html: '<p>Hola <b>Ana</b></p>',
    });
    expect(sent.transport).toBe('file');
    const folder = path.join(dataDir, 'mail', tenantId);
    const files = await readdir(folder);
    expect(files).toHaveLength(1);
    expect(sent.file).toBe(path.join(folder, files[0]));
    expect(files[0]).toMatch(new RegExp(`^2026-03-04T05-06-07-089Z-[0-9a-f-]{36}\\.eml$`));

    const raw = await readFile(sent.file!, 'utf8');
    const { headers, body } = parse(raw);
    expect(headers.get('from')).toBe(DEFAULT_MAIL_FROM);
    expect(headers.get('to')).toBe('Ana <ana@example.com>');
    // Non-ASCII subjects are MIME encoded-words.
    expect(headers.get('subject')).toMatch(/^=\?UTF-8\?/);
    expect(decodeWords(headers.get('subject')!)).toBe('Tu carrito te espera – ñandú');
    expect(headers.get('message-id')).toBe(sent.messageId);
    expect(headers.get('date')).toBe('Wed, 04 Mar 2026 05:06:07 +0000');
    expect(headers.get('x-qhatu-tenant')).toBe(tenantId);
    expect(headers.get('mime-version')).toBe('1.0');
    expect(headers.get('content-type')).toMatch(/^multipart\/alternative; boundary=/);
    expect(body).toContain('text/plain');
    expect(body).toContain('text/html');
    expect(body).toContain('https://shop.example/recover?t=abc');
  });

  it('takes the sender from QHATU_MAIL_FROM and keeps tenants in separate folders', async () => {
    const mailer = mailerFor({ QHATU_DATA_DIR: dataDir, QHATU_MAIL_FROM: 'Tienda <ventas@tienda.pe>' });
    const [a, b] = [randomUUID(), randomUUID()];
    const one = await mailer.send({ tenantId: a, to: ['x@example.com', 'y@example.com'], subject: 'A', text: 'a' });
    const two = await mailer.send({ tenantId: b, to: 'z@example.com', subject: 'B', text: 'b' });
    expect(path.dirname(one.file!)).toBe(path.join(dataDir, 'mail', a));
    expect(path.dirname(two.file!)).toBe(path.join(dataDir, 'mail', b));
    const { headers, body } = parse(await readFile(one.file!, 'utf8'));
    expect(headers.get('from')).toBe('Tienda <ventas@tienda.pe>');
    expect(headers.get('to')).toBe('x@example.com, y@example.com');
    expect(headers.get('content-type')).toMatch(/^text\/plain/);
    expect(body.trim()).toBe('a');
  });

  it('sends attachments as their own MIME parts, content base64 and intact', async () => {
    const mailer = mailerFor({ QHATU_DATA_DIR: dataDir });
    const content = Buffer.from('%PDF-1.7\n\u00ff binary \u0000 bytes\n%%EOF');
    const sent = await mailer.send({ tenantId: randomUUID(), to: 'a@example.com', subject: 'Quote', text: 'Attached.', attachments: [{ filename: 'QT-000001.pdf', content, contentType: 'application/pdf' }] });
    const { headers, body } = parse(await readFile(sent.file!, 'utf8'));
    expect(headers.get('content-type')).toMatch(/^multipart\/mixed; boundary=/);
    const part = /Content-Type: application\/pdf; name=QT-000001\.pdf\r\nContent-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename=QT-000001\.pdf\r\n\r\n([A-Za-z0-9+/=\r\n]+?)\r\n--/.exec(body);
    expect(part).not.toBeNull();
    expect(Buffer.from(part![1].replace(/\r\n/g, ''), 'base64').equals(content)).toBe(true);
  });

  it('refuses a tenant id that is not a plain identifier (no path tricks)', async () => {
    const mailer = mailerFor({ QHATU_DATA_DIR: dataDir });
    await expect(mailer.send({ tenantId: '../etc', to: 'a@example.com', subject: 's', text: 't' })).rejects.toThrow(/plain identifier/);
  });
});

describe('Mailer with SMTP_URL', () => {
  interface Received {
    from: string;
    to: string[];
    raw: string;
  }
  const received: Received[] = [];
  let server: SMTPServer;
  let port: number;
  beforeAll(async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.server.address() as AddressInfo).port;
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  it('hands the message to the SMTP server and writes no file', async () => {
    const smtpDir = await mkdtemp(path.join(tmpdir(), 'qhatu-mail-smtp-'));
    const mailer = mailerFor({ QHATU_DATA_DIR: smtpDir, SMTP_URL: `smtp://127.0.0.1:${port}`, QHATU_MAIL_FROM: 'Shop <shop@example.com>' });
    const tenantId = randomUUID();
    const sent = await mailer.send({ tenantId, to: 'buyer@example.com', subject: 'Your cart', text: 'Come back: https://x.example/r', html: '<a href="https://x.example/r">back</a>' });
    mailer.close();
    expect(sent.transport).toBe('smtp');
    expect(sent.file).toBeUndefined();
    expect(received).toHaveLength(1);
    expect(received[0].from).toBe('shop@example.com');
    expect(received[0].to).toEqual(['buyer@example.com']);
    const { headers, body } = parse(received[0].raw);
    expect(headers.get('from')).toBe('Shop <shop@example.com>');
    expect(headers.get('to')).toBe('buyer@example.com');
    expect(headers.get('subject')).toBe('Your cart');
    expect(headers.get('message-id')).toBe(sent.messageId);
    expect(headers.get('x-qhatu-tenant')).toBe(tenantId);
    expect(body).toContain('Come back: https://x.example/r');
    await expect(readdir(path.join(smtpDir, 'mail'))).rejects.toThrow();
    await rm(smtpDir, { recursive: true, force: true });
  });

  it('fails when the SMTP server refuses the message', async () => {
    const refusing = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onRcptTo(_address, _session, callback) {
        callback(new Error('no such mailbox'));
      },
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const refusingPort = (refusing.server.address() as AddressInfo).port;
    try {
      const mailer = mailerFor({ QHATU_DATA_DIR: dataDir, SMTP_URL: `smtp://127.0.0.1:${refusingPort}` });
      await expect(mailer.send({ tenantId: randomUUID(), to: 'nobody@example.com', subject: 's', text: 't' })).rejects.toThrow(/no such mailbox|rejected/i);
      mailer.close();
    } finally {
      await new Promise<void>((resolve) => refusing.close(() => resolve()));
    }
  });
});

describe('the app container', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ plugins: [] });
  });
  afterAll(async () => t?.close());

  it('holds one Mailer writing into the app data folder', async () => {
    const mailer = t.app.container.resolve(Mailer);
    expect(t.app.container.resolve(Mailer)).toBe(mailer);
    expect(mailer.from).toBe(DEFAULT_MAIL_FROM);
    const tenantId = randomUUID();
    const sent = await mailer.send({ tenantId, to: 'a@example.com', subject: 'hi', text: 'hello' });
    expect(path.dirname(sent.file!)).toBe(path.resolve(t.app.config.dataDir, 'mail', tenantId));
  });
});
