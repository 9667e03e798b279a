import { createHmac, timingSafeEqual } from 'node:crypto';

export interface UploadGrant {
  key: string;
  contentType: string;
  size: number;
  /** Unix seconds. */
  expires: number;
}

/** HMAC-SHA256 signatures of the local adapter's upload addresses. */
export class UploadSigner {
  constructor(private readonly secret: Buffer) {}

  sign(grant: UploadGrant): string {
    const text = ['PUT', grant.key, grant.contentType, String(grant.size), String(grant.expires)].join('\n');
    return createHmac('sha256', this.secret).update(text).digest('base64url');
  }

  verify(grant: UploadGrant, signature: string): boolean {
    const expected = Buffer.from(this.sign(grant));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
