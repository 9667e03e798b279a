import { createHmac } from 'node:crypto';
import { loadStripe } from './client.js';

/** Stripe's default tolerance between the signature's timestamp and now (the SDK's DEFAULT_TOLERANCE). */
export const TOLERANCE_SECONDS = 300;

/** The `Stripe-Signature` value for `payload`: `t=<unix>,v1=<hex HMAC-SHA256 of "t.payload">`. */
export function signStripePayload(payload: string | Buffer, secret: string, timestamp: number): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.`).update(payload).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

/**
 * Verifies a `Stripe-Signature` header over the raw body with the SDK's `verifyHeader`, at the
 * app's clock `now`: any v1 value may match (Stripe sends several while a secret rolls), each
 * compared with `timingSafeEqual`, and the signature may be at most `tolerance` seconds old.
 * False, never a rejection, on anything wrong.
 */
export async function verifyStripeSignature(header: string | undefined, rawBody: Buffer, secret: string, now: Date, tolerance = TOLERANCE_SECONDS): Promise<boolean> {
  if (!header || !secret) return false;
  // The SDK bounds only the age: a timestamp ahead of the clock, or one that is not a number,
  // would pass its window. Exactly one whole-number `t`, within the tolerance either way.
  const stamps = header.split(',').filter((part) => part.startsWith('t='));
  if (stamps.length !== 1 || !/^t=\d{1,12}$/.test(stamps[0])) return false;
  if (Math.abs(now.getTime() / 1000 - Number(stamps[0].slice(2))) > tolerance) return false;
  try {
    const signature = (await loadStripe()).webhooks.signature;
    if (!signature) return false;
    return signature.verifyHeader(rawBody, header, secret, tolerance, undefined, now.getTime());
  } catch {
    return false;
  }
}
