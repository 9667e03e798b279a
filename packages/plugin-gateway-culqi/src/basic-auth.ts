import { createHash, timingSafeEqual } from 'node:crypto';

/** The `Authorization` value Culqi sends for the username and password set in CulqiPanel. */
export function basicAuthHeader(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

/** Equal in constant time whatever the lengths: both sides are hashed to 32 bytes first. */
function same(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a, 'utf8').digest(), createHash('sha256').update(b, 'utf8').digest());
}

/**
 * Verifies Culqi's webhook credential: `Authorization: Basic base64(username:password)` against the
 * store's configured pair. Culqi signs nothing (no HMAC header exists); the pair is the shared secret.
 * Both parts are always compared, so the time taken tells nothing about which one differs.
 */
export function verifyBasicAuth(header: string | undefined, username: string, password: string): boolean {
  if (!header || !username || !password) return false;
  const match = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(header.trim());
  if (!match) return false;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  const userOk = same(decoded.slice(0, colon), username);
  const passOk = same(decoded.slice(colon + 1), password);
  return userOk && passOk;
}
