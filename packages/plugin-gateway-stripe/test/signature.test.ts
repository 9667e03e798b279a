import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signStripePayload, TOLERANCE_SECONDS, verifyStripeSignature } from '../src/signature.js';

// Stripe-Signature checked with the SDK at the app's clock, plus the bounds the SDK leaves open.
const secret = 'whsec_c2lnbmluZyBzZWNyZXQgZm9yIHRlc3Rz';
const body = Buffer.from('{"id":"evt_1","object":"event","type":"payment_intent.succeeded"}');
const at = new Date('2021-03-04T05:06:07Z');
const t = Math.floor(at.getTime() / 1000);
const mac = (timestamp: string, payload: Buffer = body) => createHmac('sha256', secret).update(`${timestamp}.`).update(payload).digest('hex');

describe('verifyStripeSignature', async () => {
  it('checks the age against the clock it is given, not the machine’s', async () => {
    const header = signStripePayload(body, secret, t);
    expect(await verifyStripeSignature(header, body, secret, at)).toBe(true);
    expect(await verifyStripeSignature(header, body, secret, new Date())).toBe(false);
  });

  it('takes 300 s either way: older or further ahead is refused', async () => {
    expect(TOLERANCE_SECONDS).toBe(300);
    const now = (offset: number) => new Date((t + offset) * 1000);
    const header = signStripePayload(body, secret, t);
    expect(await verifyStripeSignature(header, body, secret, now(300))).toBe(true);
    expect(await verifyStripeSignature(header, body, secret, now(301))).toBe(false);
    expect(await verifyStripeSignature(header, body, secret, now(-300))).toBe(true);
    // Dated 301 s ahead of the clock: the SDK alone would take it.
    expect(await verifyStripeSignature(header, body, secret, now(-301))).toBe(false);
  });

  it('any v1 may match (a rolling secret), in any position', async () => {
    const good = mac(String(t));
    const other = createHmac('sha256', 'whsec_old').update(`${t}.`).update(body).digest('hex');
    expect(await verifyStripeSignature(`t=${t},v1=${other},v1=${good}`, body, secret, at)).toBe(true);
    expect(await verifyStripeSignature(`t=${t},v1=${good},v1=${other}`, body, secret, at)).toBe(true);
    expect(await verifyStripeSignature(`t=${t},v1=${other}`, body, secret, at)).toBe(false);
    // Only v1 counts: the same MAC under v0 does not.
    expect(await verifyStripeSignature(`t=${t},v0=${good}`, body, secret, at)).toBe(false);
  });

  it('is false, never a throw, on anything wrong', async () => {
    const good = `t=${t},v1=${mac(String(t))}`;
    const wrong: Array<[string | undefined, Buffer, string]> = [
      [undefined, body, secret],
      ['', body, secret],
      ['garbage', body, secret],
      [good, body, ''],
      [good, body, '   '],
      [good, Buffer.alloc(0), secret],
      [good, Buffer.from(`${body.toString()} `), secret],
      [`v1=${mac(String(t))}`, body, secret],
      [`t=${t}`, body, secret],
      [`t=${t},v1=zz`, body, secret],
      [`t=${t},t=${t},v1=${mac(String(t))}`, body, secret],
      // A timestamp that is not a number would have no age at all in the SDK's check.
      [`t=abc,v1=${mac('NaN')}`, body, secret],
      [`t=${t}abc,v1=${mac(String(t))}`, body, secret],
    ];
    for (const [header, payload, key] of wrong) {
      await expect(verifyStripeSignature(header, payload, key, at), String(header)).resolves.toBe(false);
    }
  });
});
