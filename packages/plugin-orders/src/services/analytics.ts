import { AppError, Database, TenantContext } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import type { OrderStatus } from '../entities/order.js';

/** Orders that count as revenue: paid and further on (not cancelled, not refunded in full). */
export const REVENUE_STATUSES: readonly OrderStatus[] = ['paid', 'ready_to_ship', 'in_transit', 'partially_fulfilled', 'fulfilled'];
/** The longest range one question may span, in days (both ends included). */
export const MAX_RANGE_DAYS = 366;
const TOP_PRODUCTS = 10;
/**
 * What was kept of an order's total: the total less what was given back of it. A refund of what
 * the payments held beyond the total (an edit that made the order cheaper gives back the
 * difference, and its total already fell) is not taken off a second time.
 */
const KEPT = `greatest(o.total - greatest(o.amount_refunded - greatest(o.amount_paid - o.total, 0), 0), 0)`;
/**
 * An order's revenue net of tax: what was kept of its total less the tax in it, in proportion (a
 * refund gives back its share of the tax), rounded to the minor unit.
 */
const NET_REVENUE = `(${KEPT}
  - case when o.total > 0 then round(o.tax_total::numeric * ${KEPT} / o.total) else 0 end)`;
/**
 * A line's part of that, on the same basis: what the line was sold for after its share of the
 * order's discounts, less its tax where the price includes it, for the share of the order kept
 * (not refunded). An order's lines add up to its revenue less its shipping; rounded per product.
 */
const LINE_REVENUE = `(l.total_amount - l.discount_amount - case when o.prices_include_tax then l.tax_amount else 0 end)::numeric
  * case when o.total > 0 then ${KEPT}::numeric / o.total else 0 end`;

export interface SalesRange {
  /** `YYYY-MM-DD`, a UTC day, included. */
  start: string;
  /** `YYYY-MM-DD`, a UTC day, included. */
  end: string;
}

export interface TopProduct {
  productId: string;
  title: string;
  revenue: number;
}

/** One currency's sales: its orders' figures, in minor units of it. */
export interface CurrencyFigures {
  currency: string;
  totalRevenue: number;
  totalOrders: number;
  averageOrderValue: number;
  topProducts: TopProduct[];
}

/**
 * The store's sales: the top-level figures are its default currency's (as they always were), and
 * `byCurrency` reports each currency apart (decision 0097), the default first.
 */
export interface SalesFigures extends CurrencyFigures {
  byCurrency: CurrencyFigures[];
}

const DAY_MS = 86_400_000;

/** A `YYYY-MM-DD` that names a real day, as the UTC midnight that starts it; null otherwise. */
function utcDay(value: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const day = new Date(`${value}T00:00:00Z`);
  return Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value ? null : day;
}

/** [from, to): the range's first UTC midnight and the midnight after its last day; VALIDATION_ERROR for a bad range. */
export function rangeBounds(range: SalesRange): { from: Date; to: Date } {
  const from = utcDay(range.start);
  const last = utcDay(range.end);
  const problems = [
    ...(from ? [] : [{ path: 'range.start', message: 'must be a date YYYY-MM-DD' }]),
    ...(last ? [] : [{ path: 'range.end', message: 'must be a date YYYY-MM-DD' }]),
  ];
  if (problems.length) throw AppError.validation(`The range must be two dates YYYY-MM-DD: ${problems.map((p) => p.path).join(' and ')} is not`, problems);
  if (last! < from!) throw AppError.validation('The range ends before it starts', [{ path: 'range.end', message: 'must not be before range.start' }]);
  const days = (last!.getTime() - from!.getTime()) / DAY_MS + 1;
  if (days > MAX_RANGE_DAYS) throw AppError.validation(`The range spans ${days} days; at most ${MAX_RANGE_DAYS}`, [{ path: 'range', message: `at most ${MAX_RANGE_DAYS} days` }]);
  return { from: from!, to: new Date(last!.getTime() + DAY_MS) };
}

/**
 * The store's sales over a range of days (UTC), for its admin: two aggregate statements in one
 * read-only transaction, whatever the number of orders or currencies (the `orders_order_paid` index
 * serves both). Revenue is each order's total net of tax and of what was refunded of it, for orders
 * paid within the range that are paid or further on, added up per currency (amounts of two
 * currencies are never added); top products by their lines' part of that revenue (net of their
 * discounts, tax and refunds), so that products add up to it when an order has no shipping and no
 * custom lines (a draft order's lines of no catalog product are no product's). The top-level
 * figures are the store's default currency's.
 */
@injectable()
export class SalesAnalytics {
  constructor(@inject(Database) private readonly db: Database) {}

  async figures(range: SalesRange): Promise<SalesFigures> {
    const { from, to } = rangeBounds(range);
    const statuses = `(${REVENUE_STATUSES.map((s) => `'${s}'`).join(', ')})`;
    const [totals, top] = await this.db.readMayLag(async (sql) => [
      await sql.query<{ store_currency: string; currency: string | null; orders: string; revenue: string }>(
        `select t.currency as store_currency, o.currency, count(o.id) as orders, coalesce(sum(${NET_REVENUE}), 0) as revenue
           from core_tenant t
           left join orders_order o on o.tenant_id = t.id
                 and o.paid_at >= ? and o.paid_at < ? and o.status in ${statuses}
          where t.id = ?
          group by t.currency, o.currency`,
        [from.toISOString(), to.toISOString(), sql.tenantId],
      ),
      await sql.query<{ currency: string; product_id: string; title: string; revenue: string }>(
        `select currency, product_id, title, revenue from (
           select o.currency, l.product_id, (array_agg(l.title order by o.paid_at desc))[1] as title, round(sum(${LINE_REVENUE})) as revenue,
                  row_number() over (partition by o.currency order by round(sum(${LINE_REVENUE})) desc, l.product_id) as place
             from orders_order o
             join orders_line_item l on l.tenant_id = o.tenant_id and l.order_id = o.id
            where o.tenant_id = ? and o.paid_at >= ? and o.paid_at < ? and o.status in ${statuses}
              and l.product_id is not null
            group by o.currency, l.product_id) ranked
          where place <= ${TOP_PRODUCTS}
          order by currency, place`,
        [sql.tenantId, from.toISOString(), to.toISOString()],
      ),
    ] as const);
    const storeCurrency = (totals[0]?.store_currency ?? '').trim();
    const listed = TenantContext.principal()?.money?.currencies.map((c) => c.code) ?? [];
    const sold = totals.flatMap((r) => (r.currency ? [r.currency.trim()] : []));
    const others = [...new Set([...listed, ...sold])].filter((c) => c !== storeCurrency).sort();
    const byCurrency = [storeCurrency, ...others].map((currency): CurrencyFigures => {
      const row = totals.find((r) => r.currency?.trim() === currency);
      const totalOrders = Number(row?.orders ?? 0);
      const totalRevenue = Number(row?.revenue ?? 0);
      return {
        currency,
        totalRevenue,
        totalOrders,
        averageOrderValue: totalOrders > 0 ? Math.round(totalRevenue / totalOrders) : 0,
        topProducts: top.filter((r) => r.currency.trim() === currency).map((r) => ({ productId: r.product_id, title: r.title, revenue: Number(r.revenue) })),
      };
    });
    return { ...byCurrency[0], byCurrency };
  }
}
