import type { Tx } from '@qhatu/core';
import type { Variant } from '@qhatu/plugin-catalog';

/**
 * What a line costs: the strategy a B2B price list replaces (register another `OrderPrices`
 * before the orders plugin). It may lower the catalog price; the sent price never counts.
 */
export interface LinePrices {
  unitPrices(tx: Tx, variants: Variant[], customerId: string | null): Promise<Map<string, number>>;
}

export const OrderPrices = Symbol.for('qhatu.orders.OrderPrices');

/** The default: the catalog's price of each variant. */
export class CatalogPrices implements LinePrices {
  async unitPrices(_tx: Tx, variants: Variant[]): Promise<Map<string, number>> {
    return new Map(variants.map((v) => [v.id, v.price]));
  }
}
