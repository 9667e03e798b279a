import { CLOCK, Secrets, type Clock } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';

/** What an invoice link stands for: the store, the draft and the order it placed, until when. */
export interface InvoiceClaim {
  tenantId: string;
  draftId: string;
  orderId: string;
  expiresAt: Date;
}

/**
 * Invoice links: the store's invoice page with `{token}` replaced by an authenticated encryption
 * (core's `Secrets`, AES-256-GCM) of the claim. It cannot be forged or altered without the key;
 * the link of a reopened draft stops working (its order is no longer the draft's).
 */
@injectable()
export class InvoiceLinks {
  constructor(
    @inject(Secrets) private readonly secrets: Secrets,
    @inject(CLOCK) private readonly clock: Clock,
  ) {}

  link(template: string, claim: InvoiceClaim): string {
    const token = this.secrets.seal(JSON.stringify({ p: 'draft-invoice', t: claim.tenantId, d: claim.draftId, o: claim.orderId, x: claim.expiresAt.getTime() }));
    return template.replaceAll('{token}', encodeURIComponent(token));
  }

  /** What a genuine token says (`expired` past its date); null when forged or altered. */
  read(token: string): (InvoiceClaim & { expired: boolean }) | null {
    let claim: { p?: unknown; t?: unknown; d?: unknown; o?: unknown; x?: unknown };
    try {
      claim = JSON.parse(this.secrets.open(token));
    } catch {
      return null;
    }
    if (claim.p !== 'draft-invoice' || typeof claim.t !== 'string' || typeof claim.d !== 'string' || typeof claim.o !== 'string' || typeof claim.x !== 'number') return null;
    return { tenantId: claim.t, draftId: claim.d, orderId: claim.o, expiresAt: new Date(claim.x), expired: claim.x <= this.clock.now().getTime() };
  }
}
