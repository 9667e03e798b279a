import { createHmac, timingSafeEqual } from 'node:crypto';

/** The only `kr-hash-algorithm` Lyra uses. */
export const HASH_ALGORITHM = 'sha256_hmac';

/**
 * Which key signed a `kr-hash`, by its `kr-hash-key`: the REST password signs the IPN, the
 * HMAC-SHA-256 key of the Back Office's REST keys signs the browser return.
 */
export const HASH_KEYS = { password: 'password', sha256_hmac: 'hmac_key' } as const;

/** `kr-hash` as Lyra computes it: hex HMAC-SHA256 of the raw `kr-answer` string. */
export function krHash(key: string, krAnswer: string): string {
  return createHmac('sha256', key).update(krAnswer, 'utf8').digest('hex');
}

/** True when `hash` is `krAnswer`'s HMAC-SHA256 with `key`; compared in constant time, never with an empty key. */
export function verifyKrHash(krAnswer: string, hash: string | null | undefined, key: string | null | undefined): boolean {
  if (!key || !hash || !/^[0-9a-f]{64}$/i.test(hash)) return false;
  const expected = createHmac('sha256', key).update(krAnswer, 'utf8').digest();
  return timingSafeEqual(Buffer.from(hash, 'hex'), expected);
}

/** The `kr-*` fields of a form-encoded post from Lyra (IPN or browser return); null when it has none. */
export interface KrPost {
  hash: string | null;
  algorithm: string | null;
  hashKey: string | null;
  answerType: string | null;
  answer: string;
}

export function readKrPost(raw: Buffer): KrPost | null {
  const form = new URLSearchParams(raw.toString('utf8'));
  const answer = form.get('kr-answer');
  if (answer === null) return null;
  return { hash: form.get('kr-hash'), algorithm: form.get('kr-hash-algorithm'), hashKey: form.get('kr-hash-key'), answerType: form.get('kr-answer-type'), answer };
}

/**
 * Verifies a Lyra post: `kr-hash-algorithm` must be `sha256_hmac`, `kr-hash-key` names the key
 * (`password` or `sha256_hmac`), and `kr-hash` must be the HMAC of the raw `kr-answer` with it.
 * Any other algorithm or key name is refused.
 */
export function verifyKrPost(post: KrPost | null, keys: { password?: string; hmac_key?: string }): boolean {
  if (!post || post.algorithm !== HASH_ALGORITHM || !post.hashKey || !Object.hasOwn(HASH_KEYS, post.hashKey)) return false;
  return verifyKrHash(post.answer, post.hash, keys[HASH_KEYS[post.hashKey as keyof typeof HASH_KEYS]]);
}
