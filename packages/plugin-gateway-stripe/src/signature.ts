import { createHmac, timingSafeEqual } from 'node:crypto';

/** Stripe's default tolerance between the signature's timestamp and now (stripe-node DEFAULT_TOLERANCE). */
export const TOLERANCE_SECONDS = 300;

/** The `Stripe-Signature` value for `payload`: `t=<unix>,v1=<hex HMAC-SHA256 of "t.payload">`. */
export function signStripePayload(payload: string | Buffer, secret: string, timestamp: number): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.`).update(payload).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

/**
 * Verifies a `Stripe-Signature` header over the raw body: any v1 value may match (Stripe sends
 * several while a secret rolls), compared in constant time, and the timestamp must be recent.
 */
export function verifyStripeSignature(header: string | undefined, rawBody: Buffer, secret: string, now: Date, tolerance = TOLERANCE_SECONDS): boolean {
  if (!header || !secret) return false;
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2);
    if (key === 't' && /^\d{1,12}$/.test(value ?? '')) timestamp = Number(value);
    if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value ?? '')) signatures.push(Buffer.from(value!, 'hex'));
  }
  if (timestamp === undefined || signatures.length === 0) return false;
  if (Math.abs(now.getTime() / 1000 - timestamp) > tolerance) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  let matched = false;
  // Every candidate is compared, so the time taken does not tell which one matched.
  for (const candidate of signatures) matched = timingSafeEqual(candidate, expected) || matched;
  return matched;
}
