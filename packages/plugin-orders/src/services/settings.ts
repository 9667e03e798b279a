import { Database, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { OrderSettings, type StockPolicy } from '../entities/settings.js';

/** Refund a paid order that cannot get its stock, unless the store chose to let it wait (decision 0055). */
export const DEFAULT_STOCK_POLICY: StockPolicy = 'refund';

export interface OrderSettingsView {
  stockPolicy: StockPolicy;
  /** Whether the store never set it: the default applies. */
  isDefault: boolean;
  updatedAt: Date | null;
}

/** Each store's order settings; only an admin changes them. */
@injectable()
export class StoreOrderSettings {
  constructor(@inject(Database) private readonly db: Database) {}

  get(): Promise<OrderSettingsView> {
    return this.db.tenant(async (tx) => view(await tx.em.findOne(OrderSettings, { tenantId: tx.tenantId })));
  }

  async replace(input: { stock_policy: StockPolicy }): Promise<OrderSettingsView> {
    return this.db.tenant(async (tx) => view(await tx.em.upsert(OrderSettings, { tenantId: tx.tenantId, stockPolicy: input.stock_policy, updatedAt: tx.now() })));
  }

  /** The store's policy inside the caller's transaction (one read by primary key). */
  async stockPolicy(tx: Tx): Promise<StockPolicy> {
    return (await tx.em.findOne(OrderSettings, { tenantId: tx.tenantId }))?.stockPolicy ?? DEFAULT_STOCK_POLICY;
  }
}

function view(row: OrderSettings | null): OrderSettingsView {
  return { stockPolicy: row?.stockPolicy ?? DEFAULT_STOCK_POLICY, isDefault: !row, updatedAt: row?.updatedAt ?? null };
}
