import { Database, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { ReturnSettings, type ShippingRefundPolicy } from '../entities/settings.js';

export interface ReturnSettingsView {
  shippingRefund: ShippingRefundPolicy;
  windowDays: number | null;
  updatedAt: Date | null;
}

/** A store's return settings, or the defaults: no shipping given back, no time limit. */
@injectable()
export class StoreReturnSettings {
  constructor(@inject(Database) private readonly db: Database) {}

  async get(): Promise<ReturnSettingsView> {
    return this.db.tenant((tx) => this.read(tx));
  }

  async read(tx: Tx): Promise<ReturnSettingsView> {
    const row = await tx.em.findOne(ReturnSettings, { tenantId: tx.tenantId });
    return { shippingRefund: row?.shippingRefund ?? 'none', windowDays: row?.windowDays ?? null, updatedAt: row?.updatedAt ?? null };
  }

  /** Replaces the settings in one upsert (two at once both land). */
  async replace(input: { shipping_refund: ShippingRefundPolicy; window_days?: number | null }): Promise<ReturnSettingsView> {
    return this.db.tenant(async (tx) => {
      await tx.query(
        `insert into returns_settings (tenant_id, shipping_refund, window_days, updated_at) values (?, ?, ?, ?)
         on conflict (tenant_id) do update set shipping_refund = excluded.shipping_refund, window_days = excluded.window_days, updated_at = excluded.updated_at`,
        [tx.tenantId, input.shipping_refund, input.window_days ?? null, tx.now()],
      );
      return { shippingRefund: input.shipping_refund, windowDays: input.window_days ?? null, updatedAt: tx.now() };
    });
  }
}
