import type { QhatuConfig } from '../config.js';
import { AppError } from '../errors.js';
import type { Clock } from '../tokens.js';
import type { Secrets } from './secrets.js';

/**
 * The page a link's token goes to: a page of the store's own (`page`, with `{token}` in it, else
 * `?token=` added), or else this service's `path` under its public URL.
 */
export function linkPage(config: Pick<QhatuConfig, 'publicUrl'>, page: string | undefined, path: string): string {
  const url = page ?? `${config.publicUrl.replace(/\/+$/, '')}${path}`;
  return url.includes('{token}') ? url : `${url}${url.includes('?') ? '&' : '?'}token={token}`;
}

export interface SealedLinkOptions<K extends string> {
  /** What the links are for (`return-payment`): a token sealed for another purpose does not read here. */
  purpose: string;
  /** The claim's fields, by the short names the token keeps. */
  fields: readonly K[];
  /** The page the link opens, `{token}` standing for the token (see `linkPage`). */
  page: string;
  ttlDays: number;
}

export interface SealedClaim<K extends string> {
  claim: Record<K, string>;
  expiresAt: Date;
  expired: boolean;
}

/**
 * Links whose token is their own credential (a payment link sent by e-mail): a claim of one
 * purpose, sealed with the platform's key (`Secrets`: it cannot be read, forged or altered
 * without it), that expires `ttlDays` after it was made. The token holds `{ p, x, ...claim }`.
 */
export class SealedLinks<K extends string> {
  constructor(
    private readonly secrets: Secrets,
    private readonly clock: Clock,
    private readonly options: SealedLinkOptions<K>,
  ) {}

  /** A new link for `claim`: the page with its token, and when it expires. */
  link(claim: Record<K, string>): { url: string; expiresAt: Date } {
    const expiresAt = new Date(this.clock.now().getTime() + this.options.ttlDays * 86_400_000);
    const token = this.secrets.seal(JSON.stringify({ p: this.options.purpose, ...claim, x: expiresAt.getTime() }));
    return { url: this.options.page.replaceAll('{token}', encodeURIComponent(token)), expiresAt };
  }

  /** What a genuine token of this purpose says (`expired` past its date); null when forged, altered, of another purpose or no token at all. */
  read(token: string): SealedClaim<K> | null {
    let sealed: Record<string, unknown>;
    try {
      sealed = JSON.parse(this.secrets.open(token));
    } catch {
      return null;
    }
    if (!sealed || typeof sealed !== 'object' || sealed.p !== this.options.purpose || typeof sealed.x !== 'number') return null;
    const claim = {} as Record<K, string>;
    for (const field of this.options.fields) {
      const value = sealed[field];
      if (typeof value !== 'string') return null;
      claim[field] = value;
    }
    return { claim, expiresAt: new Date(sealed.x), expired: sealed.x <= this.clock.now().getTime() };
  }

  /**
   * `read` for the page behind a payment link, the token its only credential: forged, altered or
   * of another purpose, 404 PAYMENT_LINK_NOT_FOUND; past its date, 410 PAYMENT_LINK_EXPIRED.
   */
  payment(token: string): SealedClaim<K> {
    const found = this.read(token);
    if (!found) throw paymentLinkNotFound();
    if (found.expired) throw new AppError(410, 'PAYMENT_LINK_EXPIRED', 'The payment link has expired; ask the store for a new one', [{ path: 'token', message: 'expired' }]);
    return found;
  }
}

/** A payment link's token that names nothing (anymore): 404 PAYMENT_LINK_NOT_FOUND. */
export const paymentLinkNotFound = () => AppError.notFound('Payment link', 'PAYMENT_LINK_NOT_FOUND');
