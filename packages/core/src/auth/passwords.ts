import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import type { QhatuConfig } from '../config.js';
import { CONFIG } from '../tokens.js';

/** OWASP's scrypt setting N=2^15, r=8, p=3 (32 MiB, about a quarter of a second per hash); `QHATU_PASSWORD_COST` sets N's log2. */
const CURRENT = { ln: 15, r: 8, p: 3 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
const MAXMEM = 256 * 1024 * 1024;

export interface Params {
  ln: number;
  r: number;
  p: number;
}

function encode(params: Params, salt: Buffer, key: Buffer): string {
  return `scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

function decode(stored: string): { params: Params; salt: Buffer; key: Buffer } {
  const m = /^scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(stored);
  const params = m ? { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) } : undefined;
  // Bounds keep a damaged row from asking for gigabytes.
  if (!m || !params || params.ln < 10 || params.ln > 20 || params.r < 1 || params.r > 32 || params.p < 1 || params.p > 16) {
    throw new Error('A stored password hash is not in the scrypt format Qhatu writes');
  }
  return { params, salt: Buffer.from(m[4], 'base64url'), key: Buffer.from(m[5], 'base64url') };
}

/**
 * Password hashing with node's scrypt: a random salt per password, the cost parameters stored
 * with the hash (so they can be raised later without locking anyone out), constant-time compare.
 */
@injectable()
export class Passwords {
  private readonly current: Params;
  /** A hash of a random password, made at start-up, that unknown e-mails are checked against. */
  private readonly decoy: Promise<string>;

  constructor(@inject(CONFIG) config?: Pick<QhatuConfig, 'passwordCost'>) {
    this.current = { ...CURRENT, ln: config?.passwordCost ?? CURRENT.ln };
    this.decoy = this.hash(randomBytes(18).toString('base64url'));
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_BYTES);
    return encode(this.current, salt, await this.derive(password, salt, this.current));
  }

  /**
   * Whether `password` matches `stored`. Without a stored hash (unknown e-mail, customer without
   * an account) the same work is done against the decoy, so that the answer takes as long.
   */
  async verify(password: string, stored: string | null | undefined): Promise<boolean> {
    const { params, salt, key } = decode(stored ?? (await this.decoy));
    const candidate = await this.derive(password, salt, params);
    const same = candidate.length === key.length && timingSafeEqual(candidate, key);
    return same && Boolean(stored);
  }

  /** The scrypt key of `password` (runs on libuv's thread pool, off the event loop). */
  protected derive(password: string, salt: Buffer, params: Params): Promise<Buffer> {
    const options: ScryptOptions = { N: 2 ** params.ln, r: params.r, p: params.p, maxmem: MAXMEM };
    // The same password typed on two keyboards may reach us composed or decomposed.
    return new Promise((resolve, reject) =>
      scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key))),
    );
  }
}
