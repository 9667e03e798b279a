import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a notification's `ts` may be from now, either way, before it is refused as stale. */
export const TOLERANCE_SECONDS = 300;

/**
 * Mercado Pago's signed manifest: `id:<data.id>;request-id:<x-request-id>;ts:<ts>;`. A pair whose
 * value is missing is dropped (as the official SDK does); an alphanumeric `data.id` is lower-cased
 * (Mercado Pago's documentation); note the trailing `;`.
 */
export function manifest(dataId: string | null | undefined, requestId: string | null | undefined, ts: string): string {
  const id = dataId && /^[a-z0-9]+$/i.test(dataId) ? dataId.toLowerCase() : dataId;
  return [id ? `id:${id};` : '', requestId ? `request-id:${requestId};` : '', `ts:${ts};`].join('');
}

/** `ts=<unix>,v1=<hex>` as Mercado Pago sends it; null when it is not that. */
export function parseSignatureHeader(header: string | undefined): { ts: string; v1: string } | null {
  if (!header) return null;
  let ts: string | undefined;
  let v1: string | undefined;
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 'ts') ts = value;
    else if (key === 'v1') v1 = value;
  }
  if (!ts || !/^\d{1,16}$/.test(ts) || !v1 || !/^[0-9a-f]{64}$/i.test(v1)) return null;
  return { ts, v1: v1.toLowerCase() };
}

/** The `x-signature` value Mercado Pago would send for this notification (tests and tools). */
export function signatureHeader(secret: string, dataId: string | null, requestId: string | null, ts: number | string): string {
  const t = String(ts);
  return `ts=${t},v1=${createHmac('sha256', secret).update(manifest(dataId, requestId, t), 'utf8').digest('hex')}`;
}

/** `ts` in seconds; Mercado Pago has been seen sending milliseconds as well, so both are read. */
function tsSeconds(ts: string): number {
  const n = Number(ts);
  return n > 1e11 ? Math.floor(n / 1000) : n;
}

/**
 * Verifies `x-signature` over the manifest with the store's webhook secret: HMAC-SHA256, compared in
 * constant time, and `ts` within `TOLERANCE_SECONDS` of `now` (older deliveries are replays).
 */
export function verifySignature(options: {
  header: string | undefined;
  requestId: string | undefined;
  dataId: string | null;
  secret: string;
  now: Date;
  toleranceSeconds?: number;
}): boolean {
  if (!options.secret) return false;
  const parsed = parseSignatureHeader(options.header);
  if (!parsed) return false;
  const expected = createHmac('sha256', options.secret).update(manifest(options.dataId, options.requestId, parsed.ts), 'utf8').digest();
  const given = Buffer.from(parsed.v1, 'hex');
  const same = given.length === expected.length && timingSafeEqual(given, expected);
  const age = Math.abs(Math.floor(options.now.getTime() / 1000) - tsSeconds(parsed.ts));
  return same && age <= (options.toleranceSeconds ?? TOLERANCE_SECONDS);
}
