import { Database, parseEnvironment, type QhatuConfig, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { z } from 'zod';
import { DraftOrderSettings } from '../entities/settings.js';

const Env = z.object({
  QHATU_DRAFT_ORDERS_INVOICE_URL: z.url({ protocol: /^https?$/ }).max(2000).optional(),
  QHATU_DRAFT_ORDERS_LINK_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
});

/** The platform's settings (environment); a store sets its own invoice page. */
export interface DraftOrderPlatformSettings {
  /** The page an invoice link opens, `{token}` standing for the token. */
  invoiceUrl: string;
  /** How long an invoice link works. */
  linkTtlDays: number;
}

export const DRAFT_ORDER_SETTINGS = Symbol.for('qhatu.draft-orders.settings');

/** The endpoint an invoice link opens when neither the platform nor the store names a storefront page (`GET /draft-orders/invoice`). */
export const INVOICE_PATH = '/api/v1/draft-orders/invoice';

/** A URL without `{token}` gets it as the `token` query parameter. */
export function invoiceTemplate(url: string): string {
  if (url.includes('{token}')) return url;
  return `${url}${url.includes('?') ? '&' : '?'}token={token}`;
}

export function readSettings(config: QhatuConfig): DraftOrderPlatformSettings {
  const env = parseEnvironment(config.environment, Env);
  return {
    invoiceUrl: invoiceTemplate(env.QHATU_DRAFT_ORDERS_INVOICE_URL ?? `${config.publicUrl.replace(/\/+$/, '')}${INVOICE_PATH}`),
    linkTtlDays: env.QHATU_DRAFT_ORDERS_LINK_TTL_DAYS,
  };
}

/** A store's settings as they apply: its own invoice page, or the platform's. */
export interface DraftOrderSettingsView {
  invoiceUrl: string;
  invoiceUrlIsDefault: boolean;
  linkTtlDays: number;
  updatedAt: Date | null;
}

@injectable()
export class StoreDraftSettings {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(DRAFT_ORDER_SETTINGS) private readonly platform: DraftOrderPlatformSettings,
  ) {}

  async get(): Promise<DraftOrderSettingsView> {
    return this.db.tenant((tx) => this.read(tx));
  }

  async read(tx: Tx): Promise<DraftOrderSettingsView> {
    return this.view(await tx.em.findOne(DraftOrderSettings, { tenantId: tx.tenantId }));
  }

  /** `invoice_url` null: back to the platform's page. */
  async replace(input: { invoice_url?: string | null }): Promise<DraftOrderSettingsView> {
    // One statement whether the store had settings or not: two first replacements at once both land.
    return this.db.tenant(async (tx) =>
      this.view(await tx.em.upsert(DraftOrderSettings, { tenantId: tx.tenantId, invoiceUrl: input.invoice_url ?? null, updatedAt: tx.now() })),
    );
  }

  private view(row: DraftOrderSettings | null): DraftOrderSettingsView {
    return {
      invoiceUrl: row?.invoiceUrl ? invoiceTemplate(row.invoiceUrl) : this.platform.invoiceUrl,
      invoiceUrlIsDefault: !row?.invoiceUrl,
      linkTtlDays: this.platform.linkTtlDays,
      updatedAt: row?.updatedAt ?? null,
    };
  }
}
