import { Database, LOGGER, ormOf, type SqlTx, type Tx } from '@qhatu/core';
import { PriceResolver, type PriceBuyer, type PriceResolverStrategy, type Variant } from '@qhatu/plugin-catalog';
import type { LinePrices } from '@qhatu/plugin-orders';
import type { Logger } from 'pino';
import { inject, injectable } from 'tsyringe';
import { OrderPrice } from '../entities/account-order.js';
import type { ListPrice } from './pricing.js';

/** Unit prices a quote fixed for the order its conversion places in this transaction. */
const quoted = new WeakMap<Tx | SqlTx, Map<string, number>>();

/** Runs `work` (which places one order in `tx`) with each variant priced at the quote's unit price. */
export async function atQuotedPrices<T>(tx: Tx, prices: Map<string, number>, work: () => Promise<T>): Promise<T> {
  quoted.set(tx, prices);
  try {
    return await work();
  } finally {
    quoted.delete(tx);
  }
}

/** The order snapshot's rows for lines priced through a price list. */
export function snapshotRows(tx: Tx, orderId: string, prices: Iterable<ListPrice>, quoteId: string | null) {
  const rows = [];
  for (const p of prices) {
    if (!p.b2bCustomerId) continue;
    rows.push(
      tx.em.create(OrderPrice, {
        tenantId: tx.tenantId,
        orderId,
        variantId: p.variantId,
        b2bCustomerId: p.b2bCustomerId,
        quoteId,
        catalogPrice: p.catalogPrice,
        unitPrice: p.price,
        priceListId: p.priceListId,
        ruleId: p.rule?.id ?? null,
        rule: p.rule ? { ...p.rule } : null,
        createdAt: tx.now(),
      }),
    );
  }
  return rows;
}

/**
 * The orders plugin's `OrderPrices`, through whatever `PriceResolver` is registered (the price
 * lists of this plugin unless another replaced them): a B2B buyer's order lines get the list
 * price. Inside a quote's conversion, the quote's prices. Lines priced through a list are also
 * kept in `b2b_order_price` with the rule that applied, right after the order commits.
 */
@injectable()
export class PriceListOrderPrices implements LinePrices {
  constructor(
    @inject(PriceResolver) private readonly resolver: PriceResolverStrategy,
    @inject(Database) private readonly db: Database,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** `currency`: the order's, when the orders plugin names it; a list prices orders in its own currency only. */
  async unitPrices(tx: Tx | SqlTx, variants: Variant[], customerId: string | null, currency?: string | null): Promise<Map<string, number>> {
    const fixed = quoted.get(tx);
    if (fixed) return new Map(variants.map((v) => [v.id, fixed.get(v.id) ?? v.price]));
    const buyer: PriceBuyer & { currency?: string } = currency ? { customerId, currency } : { customerId };
    const resolved = await this.resolver.resolve(tx, variants, buyer);
    const listed = [...resolved.values()].filter((p): p is ListPrice => Boolean((p as ListPrice).b2bCustomerId));
    if (listed.length > 0) {
      // The snapshot follows the commit of the order this transaction places: a `Tx`'s events tell which.
      const orm = await ormOf(tx);
      orm.afterCommit(() => this.keepSnapshot(orm, listed));
    }
    return new Map([...resolved].map(([id, p]) => [id, p.price]));
  }

  /** The order this transaction placed (its one orders.order.created) gets its price snapshot. */
  private async keepSnapshot(tx: Tx, prices: ListPrice[]): Promise<void> {
    const created = tx.pending.filter((e) => e.type === 'orders.order.created');
    if (created.length !== 1) return;
    const orderId = String(created[0].data.id);
    await this.db
      .tenant(async (own) => {
        if (await own.em.count(OrderPrice, { orderId })) return;
        snapshotRows(own, orderId, prices, null);
      }, tx.tenantId)
      .catch((error: unknown) => this.logger.warn({ err: error, orderId }, 'B2B price snapshot not kept'));
  }
}
