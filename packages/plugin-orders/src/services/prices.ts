import type { SqlTx, Tx } from '@qhatu/core';
import type { SellableFacts } from '@qhatu/plugin-catalog';

/** A variant as an order prices it: the catalog's facts of it. */
export type PricedLine = SellableFacts['variant'];

/**
 * What a line costs: the strategy a B2B price list replaces (register another `OrderPrices`
 * before the orders plugin). It may lower the catalog price; the sent price never counts. It runs
 * in the order's transaction, which may be ORM-free (`Database.sqlFirst`): a part that needs the
 * ORM takes it with `ormOf(tx)`.
 */
export interface LinePrices {
  unitPrices(tx: Tx | SqlTx, variants: PricedLine[], customerId: string | null): Promise<Map<string, number>>;
}

export const OrderPrices = Symbol.for('qhatu.orders.OrderPrices');

/** The default: the catalog's price of each variant. */
export class CatalogPrices implements LinePrices {
  async unitPrices(_tx: Tx | SqlTx, variants: PricedLine[]): Promise<Map<string, number>> {
    return new Map(variants.map((v) => [v.id, v.price]));
  }
}
