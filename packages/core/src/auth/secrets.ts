import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import type { QhatuConfig } from '../config.js';
import { CONFIG } from '../tokens.js';

const VERSION = 'v1';

/**
 * Encrypts secrets kept at rest (webhook signing secrets, gateway credentials) with AES-256-GCM.
 * The key is QHATU_SECRET_KEY (32 bytes, base64) or, without it, derived from the platform token.
 */
@injectable()
export class Secrets {
  private readonly key: Buffer;

  constructor(@inject(CONFIG) config: QhatuConfig) {
    const given = config.environment.QHATU_SECRET_KEY;
    if (given) {
      const key = Buffer.from(given, 'base64');
      if (key.length !== 32) throw new Error('QHATU_SECRET_KEY must be 32 bytes, base64-encoded');
      this.key = key;
    } else {
      const seed = config.platformToken ?? '';
      if (!seed) throw new Error('Secrets need QHATU_SECRET_KEY or a platform token');
      this.key = Buffer.from(hkdfSync('sha256', createHash('sha256').update(seed).digest(), 'qhatu', 'secrets-at-rest', 32));
    }
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) throw new Error('Not a sealed secret');
    const [ivBytes, tagBytes, bodyBytes] = [strictBase64url(iv), strictBase64url(tag), strictBase64url(body)];
    if (ivBytes?.length !== 12 || tagBytes?.length !== 16 || !bodyBytes) throw new Error('Not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, ivBytes);
    decipher.setAuthTag(tagBytes);
    return Buffer.concat([decipher.update(bodyBytes), decipher.final()]).toString('utf8');
  }
}

/**
 * The bytes of a base64url text in its one canonical spelling, or null: Node's decoder skips
 * characters outside the alphabet and ignores a last character's spare bits, so two spellings
 * of one secret would otherwise both open.
 */
function strictBase64url(text: string): Buffer | null {
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : null;
}
