import { TenantContext, uuidArray, type TxReader } from '@qhatu/core';
import { CatalogPriceResolver, catalogPriceOf, type PriceBuyer, type PricedVariant, type PriceResolverStrategy, type ResolvedPrice } from '@qhatu/plugin-catalog';
import { inject, injectable } from 'tsyringe';
import type { RuleScope, RuleType } from '../entities/price-list.js';

/** A rule as pricing reads it. */
export interface RuleSnapshot {
  id: string;
  type: RuleType;
  value: number;
  applies_to: RuleScope;
  category_id: string | null;
  product_id: string | null;
}

/** A company's price list with its rules in order. */
export interface ListOfCompany {
  b2bCustomerId: string;
  priceListId: string;
  currency: string;
  rules: RuleSnapshot[];
}

/** A resolved price with the B2B facts the order snapshot keeps. */
export interface ListPrice extends ResolvedPrice {
  b2bCustomerId: string | null;
  rule: RuleSnapshot | null;
}

/**
 * The price through a list: the first rule, in order, that matches the variant gives it
 * (`percentage`: that share of the catalog price off, rounded to the nearest minor unit;
 * `fixed`: that many minor units off); no rule matching, the catalog price. Never below 0.
 */
export function priceThrough(rules: readonly RuleSnapshot[], catalogPrice: number, productId: string, collections: ReadonlySet<string>): { price: number; rule: RuleSnapshot | null } {
  const rule = rules.find((r) => r.applies_to === 'all' || (r.applies_to === 'product' && r.product_id === productId) || (r.applies_to === 'category' && r.category_id !== null && collections.has(r.category_id)));
  if (!rule) return { price: catalogPrice, rule: null };
  const off = rule.type === 'percentage' ? Math.floor((catalogPrice * rule.value + 50) / 100) : rule.value;
  return { price: Math.max(0, catalogPrice - off), rule };
}

// The list, its rules in order (one statement): by the buyer's account or by the company.
const LIST_SQL = `
  select c.id as b2b_customer_id, l.id as price_list_id, l.currency,
         coalesce((select json_agg(json_build_object('id', r.id, 'type', r.type, 'value', r.value, 'applies_to', r.applies_to,
                                                     'category_id', r.category_id, 'product_id', r.product_id) order by r.position)
                     from b2b_price_rule r where r.tenant_id = l.tenant_id and r.price_list_id = l.id), '[]'::json) as rules
    from b2b_customer c
    join b2b_price_list l on l.tenant_id = c.tenant_id and l.id = c.price_list_id`;

interface ListRow {
  b2b_customer_id: string;
  price_list_id: string;
  currency: string;
  rules: Array<Omit<RuleSnapshot, 'value'> & { value: number | string }>;
}

const toList = (row: ListRow | undefined): ListOfCompany | null =>
  row ? { b2bCustomerId: row.b2b_customer_id, priceListId: row.price_list_id, currency: row.currency, rules: row.rules.map((r) => ({ ...r, value: Number(r.value) })) } : null;

/**
 * The customer whose list may price this call: the signed-in customer itself, or anyone the store
 * prices for (an admin key, a staff member, in-process work with no caller). A customer id that a
 * guest's or another shopper's request merely names (a guest checkout with a buyer's e-mail, a
 * cart made for a customer id) gets catalog prices: wholesale prices need the buyer signed in.
 */
export function trustedBuyer(customerId: string | null): string | null {
  if (!customerId) return null;
  const caller = TenantContext.principal();
  if (!caller) return customerId;
  if (caller.kind === 'customer') return caller.subjectId === customerId ? customerId : null;
  return caller.kind === 'admin' || caller.kind === 'staff' ? customerId : null;
}

/** The buyer as the catalog's `PriceBuyer` names it, with the currency it pays in (decision 0097). */
type Buyer = PriceBuyer & { currency?: string | null };

/**
 * The B2B `PriceResolver`: a customer account that buys for an active or on-hold company pays
 * its price list's prices when signed in, or when the store prices for it; everybody else the
 * catalog's. A list prices in its own currency only: on the catalog's price in the buyer's currency
 * (`buyer.currency`, the cart's) when that is the list's; a cart in another currency pays the
 * catalog's price in it. Variants the catalog does not sell in that currency are left out, as the
 * catalog leaves them. One statement for a guest or a buyer without a list; two when a rule names
 * a collection; plus what the catalog reads for a currency other than the store's default.
 */
@injectable()
export class PriceListResolver implements PriceResolverStrategy {
  constructor(@inject(CatalogPriceResolver) private readonly catalog: PriceResolverStrategy) {}

  async resolve(tx: TxReader, variants: readonly PricedVariant[], buyer: Buyer): Promise<Map<string, ListPrice>> {
    const customerId = trustedBuyer(buyer.customerId);
    if (!customerId || variants.length === 0) return this.through(tx, variants, await this.catalog.resolve(tx, variants, buyer), null);
    const [row] = await tx.query<ListRow>(
      `${LIST_SQL} join b2b_buyer b on b.tenant_id = c.tenant_id and b.b2b_customer_id = c.id
        where c.tenant_id = ? and b.customer_id = ? and c.status <> 'disabled'`,
      [tx.tenantId, customerId],
    );
    const list = toList(row);
    // The list's rules apply to its own currency only: a cart in another gets the catalog's price there.
    const applies = list && (!buyer.currency || buyer.currency === list.currency) ? list : null;
    return this.through(tx, variants, await this.catalog.resolve(tx, variants, buyer), applies);
  }

  /** The company's list (whatever its status: quotes check it themselves), or null. */
  async listOf(tx: TxReader, b2bCustomerId: string): Promise<ListOfCompany | null> {
    const [row] = await tx.query<ListRow>(`${LIST_SQL} where c.tenant_id = ? and c.id = ?`, [tx.tenantId, b2bCustomerId]);
    return toList(row);
  }

  /** The variants, in their own currency, through `list` (a quote's prices). */
  async priceAll(tx: TxReader, variants: readonly PricedVariant[], list: ListOfCompany | null): Promise<Map<string, ListPrice>> {
    return this.through(tx, variants, new Map(variants.map((v) => [v.id, catalogPriceOf(v)])), list);
  }

  /** The catalog's prices through the list's rules, for the prices in the list's currency. */
  private async through(tx: TxReader, variants: readonly PricedVariant[], catalog: Map<string, ResolvedPrice>, list: ListOfCompany | null): Promise<Map<string, ListPrice>> {
    const plain = (p: ResolvedPrice): ListPrice => ({ ...p, b2bCustomerId: null, rule: null });
    const out = new Map<string, ListPrice>();
    const collections = list ? await this.collectionsOf(tx, variants, list.rules) : new Map<string, Set<string>>();
    for (const v of variants) {
      const base = catalog.get(v.id);
      if (!base) continue;
      if (!list || base.currency !== list.currency) {
        out.set(v.id, plain(base));
        continue;
      }
      const { price, rule } = priceThrough(list.rules, base.price, v.productId, collections.get(v.productId) ?? new Set());
      out.set(v.id, { ...base, price, priceListId: list.priceListId, ruleId: rule?.id ?? null, b2bCustomerId: list.b2bCustomerId, rule });
    }
    return out;
  }

  /** The collections named by the rules that each product is in; no statement when no rule names one. */
  private async collectionsOf(tx: TxReader, variants: readonly PricedVariant[], rules: readonly RuleSnapshot[]): Promise<Map<string, Set<string>>> {
    const named = [...new Set(rules.flatMap((r) => (r.category_id ? [r.category_id] : [])))];
    const found = new Map<string, Set<string>>();
    if (named.length === 0) return found;
    const products = [...new Set(variants.map((v) => v.productId))];
    const rows = await tx.query<{ product_id: string; collection_id: string }>(
      `select product_id, collection_id from catalog_collection_product
        where tenant_id = ? and product_id = any(?::uuid[]) and collection_id = any(?::uuid[])`,
      [tx.tenantId, uuidArray(products), uuidArray(named)],
    );
    for (const row of rows) {
      const set = found.get(row.product_id) ?? new Set<string>();
      set.add(row.collection_id);
      found.set(row.product_id, set);
    }
    return found;
  }
}
