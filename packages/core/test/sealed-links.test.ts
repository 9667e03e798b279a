import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError, linkPage, loadConfig, SealedLinks, Secrets, type Clock } from '../src/index.js';

// Links whose token is their own credential (the payment links of order edits and returns): a
// claim of one purpose sealed with the platform's key, expiring; anything else reads as nothing.

const secrets = new Secrets(loadConfig({ QHATU_ENV: 'development', QHATU_SECRET_KEY: randomBytes(32).toString('base64') }));
let at = Date.parse('2026-11-29T12:00:00Z');
const clock: Clock = { now: () => new Date(at) };
const page = 'https://shop.example/pay?step=1&token={token}';
const links = new SealedLinks(secrets, clock, { purpose: 'return-payment', fields: ['t', 'r'], page, ttlDays: 2 });
const tokenOf = (url: string) => decodeURIComponent(new URL(url).searchParams.get('token')!);

describe('SealedLinks', () => {
  it('seals a claim into the page and reads it back, expiring after its days', () => {
    const { url, expiresAt } = links.link({ t: 'store-1', r: 'return-9' });
    expect(url.startsWith('https://shop.example/pay?step=1&token=')).toBe(true);
    expect(expiresAt.toISOString()).toBe('2026-12-01T12:00:00.000Z');
    const token = tokenOf(url);
    // The claim is not readable in the token.
    expect(token).not.toContain('store-1');
    expect(links.read(token)).toEqual({ claim: { t: 'store-1', r: 'return-9' }, expiresAt, expired: false });
    expect(links.payment(token).claim).toEqual({ t: 'store-1', r: 'return-9' });
    at += 2 * 86_400_000;
    expect(links.read(token)?.expired).toBe(true);
    at -= 2 * 86_400_000;
  });

  it('reads nothing from a token altered, of another purpose, missing a field, or not a token; payment() answers 404 and 410', () => {
    const token = tokenOf(links.link({ t: 'store-1', r: 'return-9' }).url);
    const [version, iv, tag, body] = token.split('.');
    const flipped = `${body[0] === 'A' ? 'B' : 'A'}${body.slice(1)}`;
    const others = {
      altered: [version, iv, tag, flipped].join('.'),
      'another purpose': tokenOf(new SealedLinks(secrets, clock, { purpose: 'order-edit-payment', fields: ['t', 'r'], page, ttlDays: 2 }).link({ t: 'store-1', r: 'return-9' }).url),
      'a field missing': tokenOf(new SealedLinks(secrets, clock, { purpose: 'return-payment', fields: ['t'], page, ttlDays: 2 }).link({ t: 'store-1' }).url),
      'not a token': 'hello',
      empty: '',
    };
    for (const [what, other] of Object.entries(others)) {
      expect(links.read(other), what).toBeNull();
      expect(() => links.payment(other), what).toThrow(expect.objectContaining({ status: 404, code: 'PAYMENT_LINK_NOT_FOUND' }) as unknown as AppError);
    }
    at += 3 * 86_400_000;
    try {
      expect(() => links.payment(token)).toThrow(expect.objectContaining({ status: 410, code: 'PAYMENT_LINK_EXPIRED' }) as unknown as AppError);
    } finally {
      at -= 3 * 86_400_000;
    }
  });

  it("puts the token in the store's page, else in the service's own", () => {
    const config = { publicUrl: 'https://api.example/' };
    expect(linkPage(config, undefined, '/api/v1/returns/payment')).toBe('https://api.example/api/v1/returns/payment?token={token}');
    expect(linkPage(config, 'https://shop.example/pay', '/x')).toBe('https://shop.example/pay?token={token}');
    expect(linkPage(config, 'https://shop.example/pay?lang=es', '/x')).toBe('https://shop.example/pay?lang=es&token={token}');
    expect(linkPage(config, 'https://shop.example/pay/{token}', '/x')).toBe('https://shop.example/pay/{token}');
  });
});
