import { createPublicKey, verify, type KeyObject } from 'node:crypto';

/** Pay-me's documented bound on the `signature` header (Base64 of an RSA signature). */
const MAX_SIGNATURE_CHARS = 512;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Alignet's notification key from its PEM; null when it is not an RSA public key. */
export function alignetKey(pem: string | undefined): KeyObject | null {
  if (!pem) return null;
  try {
    const key = createPublicKey(pem);
    return key.asymmetricKeyType === 'rsa' ? key : null;
  } catch {
    return null;
  }
}

/**
 * Pay-me's server-to-server notification check: header `signature` is the Base64 of a
 * SHA512withRSA (PKCS#1 v1.5) signature over the whole body as received, made with Alignet's
 * private key; it is verified with the public key Alignet gave the store. Any doubt is false.
 */
export function verifySignature(rawBody: Buffer, header: string | string[] | undefined, publicKeyPem: string | undefined): boolean {
  if (typeof header !== 'string') return false;
  const signature = header.trim();
  if (!signature || signature.length > MAX_SIGNATURE_CHARS || !BASE64.test(signature)) return false;
  const key = alignetKey(publicKeyPem);
  if (!key) return false;
  try {
    return verify('RSA-SHA512', rawBody, key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}
