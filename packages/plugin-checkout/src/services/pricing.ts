import { PriceResolver, SELLABLE_FACTS, sellablesFrom, sellablesSql, type PriceResolverStrategy, type ResolvedPrice, type SellableFacts } from '@qhatu/plugin-catalog';
import { Discounts, type OrderLine } from '@qhatu/plugin-discounts';
import { allocate, LineOffers, offerUnitPrice, OrderTaxes, taxesFor, type LineOffersStrategy, type OfferTerms, type TaxAddress, type TaxCalculator, type TaxQuote } from '@qhatu/plugin-orders';
import { FactCache, TenantContext, uuidArray, type FactVersion, type KeptFacts, type Tx, type TxReader } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import type { Cart } from '../entities/cart.js';
import type { CartItem } from '../entities/cart-item.js';
import { marketTaxMode, type MarketTerms } from './markets.js';
import type { CartTotals, LineState } from './views.js';

/** What the catalog says about the variants of a cart: the variant and its product, when it may be sold. */
export type Sellable = SellableFacts;

/** A line to price: which variant, how many, and the identity it keeps. */
export type LineToPrice = Pick<LineState, 'id' | 'variantId' | 'quantity' | 'createdAt'> & { offerId?: string | null };

/** Who and what a price is for: the coupon and its customer, the currency lines are priced in, the market whose tax mode applies. */
export type PricedFor = Pick<Cart, 'currency' | 'couponCode' | 'customerId'> & MarketTerms & { customerEmail?: string | null };

/**
 * A cart (or checkout) priced now, computed without writing anything: the lines that stay with
 * the catalog's facts (`lines[n]` prices `kept[n]`), the lines that would leave, and the totals.
 */
export interface CartQuote<T extends LineToPrice> {
  lines: LineState[];
  kept: T[];
  dropped: T[];
  totals: CartTotals;
  /** `couponShares[n]`: the part of the coupon taken off `lines[n]` (before tax). */
  couponShares: number[];
  /** The tax of `lines` (and of the shipping), from the store's tax calculator. */
  taxes: TaxQuote;
  /** The catalog's price in the target's currency of each variant priced by the price resolution (before a buyer's price list). */
  catalogPrices: Map<string, number>;
}

/** Where the goods go and what shipping costs: a checkout's; a cart has neither (the store's own country is used). */
export interface TaxedFor {
  address: TaxAddress | null;
  shipping: number;
}

const NOWHERE: TaxedFor = { address: null, shipping: 0 };

/** What a quote would read, read beforehand in a caller's statement (`CartPricing.readsSql`). */
export interface PricingReads {
  tiers?: unknown;
  taxFacts?: unknown;
  /** The tax calculator's facts at the address the quote is taxed for (`placeFactsSql`), read with it. */
  placeTaxFacts?: unknown;
}

/** The store's versions of what a quote reads, by topic, as a statement read them (`CartPricing.versionsSql`). */
export type PricingVersions = Record<string, FactVersion>;

/** A quote's reads of a cart's variants from memory (`CartPricing.known`). */
export interface KnownReads {
  catalog: Map<string, Sellable>;
  read: PricingReads;
}

/**
 * Prices a cart from the catalog, whatever the client sent: the price of each variant for this
 * buyer (`PriceResolver`: the catalog price, or a B2B price list's), volume discounts by quantity
 * of one product, then the coupon on what is left, then the tax of each line's final price
 * (`OrderTaxes`). Integer minor units.
 */
@injectable()
export class CartPricing {
  constructor(
    @inject(Discounts) private readonly discounts: Discounts,
    @inject(OrderTaxes) private readonly taxes: TaxCalculator,
    @inject(PriceResolver) private readonly prices: PriceResolverStrategy,
    @inject(LineOffers) private readonly offers: LineOffersStrategy,
    @inject(FactCache) private readonly facts: FactCache,
  ) {}

  /**
   * The store's versions of what `readsSql` and the catalog's facts read (a JSON object by topic),
   * as one column for a caller's select list: what `known` and `keep` take. Without a way to keep
   * the tax calculator's facts, there is nothing to version (everything is read every time).
   */
  versionsSql(tenantSql: string): string {
    const kinds = this.kept();
    if (!kinds) return `'{}'::json`;
    return `json_build_object(${kinds.map((k) => `'${k.topic}', ${k.versionSql(tenantSql)}`).join(', ')})`;
  }

  /**
   * What a quote of lines of `variantIds` reads (the catalog's facts, the volume tiers, the tax
   * facts at the store's origin), from memory, at the versions a statement of the caller's
   * transaction read; `undefined` when any part is not kept at those versions (decision 0049).
   */
  known(tenantId: string, versions: PricingVersions, variantIds: readonly string[]): KnownReads | undefined {
    const kinds = this.kept();
    if (!kinds || !this.facts.enabled) return undefined;
    const sellables = this.facts.known(tenantId, SELLABLE_FACTS, versions[SELLABLE_FACTS.topic] ?? null, variantIds);
    if (!sellables) return undefined;
    const catalog = sellablesFrom(sellables);
    const productIds = productsOf(catalog);
    const tiers = this.facts.known(tenantId, this.discounts.volumeTierFacts, versions[this.discounts.volumeTierFacts.topic] ?? null, productIds);
    if (tiers === undefined) return undefined;
    const tax = this.taxes.originFacts;
    if (!tax) return { catalog, read: { tiers } };
    const taxFacts = this.facts.known(tenantId, tax, versions[tax.topic] ?? null, [...variantIds, ...productIds]);
    return taxFacts === undefined ? undefined : { catalog, read: { tiers, taxFacts } };
  }

  /** Keeps what a statement read for lines of `variantIds` (`sellables`, `readsSql`'s columns) under the versions it read with them. */
  keep(tenantId: string, versions: PricingVersions, variantIds: readonly string[], catalog: Map<string, Sellable>, sellables: unknown, read: PricingReads): void {
    const kinds = this.kept();
    if (!kinds || !this.facts.enabled) return;
    const productIds = productsOf(catalog);
    this.facts.keep(tenantId, SELLABLE_FACTS, versions[SELLABLE_FACTS.topic] ?? null, variantIds, sellables);
    this.facts.keep(tenantId, this.discounts.volumeTierFacts, versions[this.discounts.volumeTierFacts.topic] ?? null, productIds, read.tiers);
    const tax = this.taxes.originFacts;
    if (tax && 'taxFacts' in read) this.facts.keep(tenantId, tax, versions[tax.topic] ?? null, [...variantIds, ...productIds], read.taxFacts);
  }

  /** The facts a quote of a cart reads that can be kept: all of them, or none when the tax calculator reads what it cannot keep. */
  private kept(): KeptFacts[] | undefined {
    const tax = this.taxes.originFacts;
    if (this.taxes.originFactsSql && !tax) return undefined;
    return [SELLABLE_FACTS, this.discounts.volumeTierFacts, ...(tax ? [tax] : [])];
  }

  /** The sellers' offers the lines name, as they sell now (none without a marketplace, or when no line names one). */
  async offersOf(tx: TxReader, items: Array<{ offerId?: string | null }>): Promise<Map<string, OfferTerms>> {
    const ids = [...new Set(items.flatMap((i) => (i.offerId ? [i.offerId] : [])))];
    return ids.length ? this.offers.terms(tx, ids) : new Map();
  }

  /** The variants (with their products) among `variantIds` that exist in the store; one statement. */
  async catalogOf(tx: TxReader, variantIds: string[]): Promise<Map<string, Sellable>> {
    if (variantIds.length === 0) return new Map();
    const [row] = await tx.query<{ sellables: unknown }>(
      `with wanted as (select ?::uuid as tenant_id, ?::uuid[] as ids) select ${sellablesSql('(select tenant_id from wanted)', 'select unnest(ids) from wanted')} as sellables`,
      [tx.tenantId, uuidArray(variantIds)],
    );
    return sellablesFrom(row.sellables);
  }

  /**
   * The columns `tiers` and `tax_facts` for a caller's select list: what a quote of a cart (no
   * address) reads, so that the caller reads it in a round trip it makes anyway; hand the row to
   * `quote` through `readsFrom`. `variantIdsSql` and `productIdsSql` select the lines' ids.
   */
  readsSql(tenantSql: string, variantIdsSql: string, productIdsSql: string): string {
    const tax = this.taxes.originFactsSql?.(tenantSql, `${variantIdsSql} union all ${productIdsSql}`);
    return `${this.discounts.volumeTiersSql(tenantSql, productIdsSql)} as tiers${tax ? `, ${tax} as tax_facts` : ''}`;
  }

  /**
   * The columns `tiers` and `place_tax_facts` for a caller's select list: what a quote taxed at an
   * address reads (the checkout's shipping step), `place` giving the address's country code and
   * province as SQL; hand the row to `quote` through `placeReadsFrom`.
   */
  placeReadsSql(tenantSql: string, variantIdsSql: string, productIdsSql: string, place: { countrySql: string; provinceSql: string }): string {
    const tax = this.taxes.placeFactsSql?.(tenantSql, `${variantIdsSql} union all ${productIdsSql}`, place);
    return `${this.discounts.volumeTiersSql(tenantSql, productIdsSql)} as tiers${tax ? `, ${tax} as place_tax_facts` : ''}`;
  }

  /** The reads of `placeReadsSql` in a row. */
  placeReadsFrom(row: Record<string, unknown>): PricingReads {
    return { tiers: row.tiers, ...('place_tax_facts' in row && { placeTaxFacts: row.place_tax_facts }) };
  }

  /** The reads of `readsSql` in a row. */
  readsFrom(row: Record<string, unknown>): PricingReads {
    return { tiers: row.tiers, ...('tax_facts' in row && { taxFacts: row.tax_facts }) };
  }

  /**
   * What the lines cost now (reads only: the catalog, the volume tiers, the coupon). Lines whose
   * variant is gone, whose product is no longer active or that the price resolution does not price
   * in `target`'s currency (not for sale in it) are dropped. Tax comes last, on each line's price
   * after its volume discount and its share of the coupon (decision 0039); `total` adds it only
   * when the prices exclude it: the market's say (`prices_include_tax`), else the store's setting.
   */
  async quote<T extends LineToPrice>(
    tx: TxReader,
    target: PricedFor,
    items: T[],
    catalog?: Map<string, Sellable>,
    taxedFor: TaxedFor = NOWHERE,
    read: PricingReads = {},
  ): Promise<CartQuote<T>> {
    const sellables = catalog ?? (await this.catalogOf(tx, items.map((i) => i.variantId)));
    const kept: T[] = [];
    const dropped: T[] = [];
    const lines: LineState[] = [];
    // A line on a seller's offer sells while the offer does, at its price (a marketplace).
    const offers = await this.offersOf(tx, items);
    // A variant priced in neither the target's currency nor the store's default (written before the catalog refused one) sells in none.
    const defaultCurrency = TenantContext.principal()?.money?.defaultCurrency;
    const active = (item: T) => {
      const found = sellables.get(item.variantId);
      if (item.offerId && offers.get(item.offerId)?.productId !== found?.product.id) return undefined;
      if (found?.variant.currency !== target.currency && found?.variant.currency !== defaultCurrency) return undefined;
      return found?.product.status === 'active' ? found : undefined;
    };
    // What this buyer pays for each variant in the cart's currency: the catalog price (set in that currency, or derived
    // by the store's rate), or a price list's (B2B) when one applies; a variant left out is not for sale in it.
    const variants = items.flatMap((item) => (item.offerId ? [] : (active(item)?.variant ?? [])));
    const resolved = variants.length ? await this.prices.resolve(tx, variants, { customerId: target.customerId ?? null, currency: target.currency }) : new Map<string, ResolvedPrice>();
    const sellable = (item: T) => {
      const found = active(item);
      // An offer has one price, in the variant's currency (the store's default): it sells in that currency only.
      if (!found || (item.offerId ? found.variant.currency : resolved.get(found.variant.id)?.currency) !== target.currency) return undefined;
      return found;
    };
    for (const item of items) {
      const found = sellable(item);
      if (!found) {
        dropped.push(item);
        continue;
      }
      kept.push(item);
      const facts = catalogFacts(found);
      const offer = item.offerId ? offers.get(item.offerId) : undefined;
      facts.unitPrice = offer ? offerUnitPrice(offer, found.variant) : resolved.get(found.variant.id)!.price;
      lines.push({ id: item.id, variantId: item.variantId, quantity: item.quantity, createdAt: item.createdAt, offerId: item.offerId ?? null, ...facts, volumeDiscount: 0 });
    }
    const volume = await this.discounts.volumeDiscountsFor(tx, lines.map((l): OrderLine => ({ productId: l.productId, quantity: l.quantity, unitPrice: l.unitPrice })), read.tiers, target.currency);
    lines.forEach((line, n) => (line.volumeDiscount = volume[n]?.discountAmount ?? 0));
    const subtotal = lines.reduce((sum, l) => sum + l.quantity * l.unitPrice, 0);
    const volumeTotal = lines.reduce((sum, l) => sum + l.volumeDiscount, 0);
    const afterVolume = subtotal - volumeTotal;

    let couponDiscount = 0;
    let refusal: string | null = null;
    let eligible: (productId: string) => boolean = () => true;
    if (target.couponCode) {
      const verdict = await this.discounts.validate(tx, {
        code: target.couponCode,
        orderAmount: afterVolume,
        currency: target.currency,
        customerId: target.customerId,
        customerEmail: target.customerEmail ?? null,
        // Each line at what it costs after its volume discount, so the coupon is taken on what is paid.
        items: lines.map((l) => ({ productId: l.productId, quantity: 1, unitPrice: l.quantity * l.unitPrice - l.volumeDiscount })),
      });
      couponDiscount = verdict.valid ? verdict.discountAmount : 0;
      refusal = verdict.valid ? null : verdict.reason;
      const coupon = verdict.coupon;
      if (coupon?.applicableTo === 'products') eligible = (productId) => coupon.applicableIds.includes(productId);
    }
    const couponShares = shareCoupon(couponDiscount, lines, eligible);
    // The market's tax mode, when it has one; null: the store's setting.
    const marketMode = marketTaxMode(target);
    const request = {
      currency: target.currency,
      address: taxedFor.address,
      shipping: taxedFor.shipping,
      lines: lines.map((l, n) => ({
        variantId: l.variantId, productId: l.productId, quantity: l.quantity, taxable: l.taxable,
        amount: l.quantity * l.unitPrice - l.volumeDiscount - couponShares[n],
      })),
      pricesIncludeTax: marketMode,
    };
    // The calculator quotes in the market's mode (a live provider by its own rules); `taxesFor` works
    // a quote answered in another mode out again from its rates (`inTaxMode`: a calculator that ignores the mode).
    const taxes = await taxesFor(this.taxes, tx, request, taxedFor.address ? read.placeTaxFacts : read.taxFacts);
    const totals: CartTotals = {
      itemCount: lines.reduce((sum, l) => sum + l.quantity, 0),
      subtotal,
      volumeDiscountTotal: volumeTotal,
      couponDiscount,
      couponRefusal: refusal,
      taxTotal: taxes.total,
      pricesIncludeTax: taxes.pricesIncludeTax,
      marketPricesIncludeTax: target.marketId ? marketMode : null,
      total: afterVolume - couponDiscount + taxedFor.shipping + (taxes.pricesIncludeTax ? 0 : taxes.total),
    };
    const catalogPrices = new Map([...resolved.values()].filter((p) => p.currency === target.currency).map((p) => [p.variantId, p.catalogPrice]));
    return { lines, kept, dropped, totals, couponShares, taxes, catalogPrices };
  }

  /**
   * Prices the cart now and writes it: every line refreshed from the catalog, the lines that may
   * no longer be sold removed, the totals stored. Returns the lines that stay.
   */
  async reprice(tx: Tx, cart: Cart, items: CartItem[], catalog?: Map<string, Sellable>): Promise<CartItem[]> {
    return (await this.repriceQuote(tx, cart, items, catalog)).kept;
  }

  /** `reprice`, answering the whole quote (a checkout keeps each line's tax). */
  async repriceQuote(tx: Tx, cart: Cart, items: CartItem[], catalog?: Map<string, Sellable>): Promise<CartQuote<CartItem>> {
    const quote = await this.quote(tx, cart, items, catalog);
    const { lines, kept, dropped, totals } = quote;
    for (const item of dropped) tx.em.remove(item);
    kept.forEach((item, n) => refreshLine(item, lines[n], tx.now()));
    for (const [key, value] of Object.entries(totals) as Array<[keyof CartTotals, never]>) {
      if (cart[key] !== value) (cart as Record<string, unknown>)[key] = value;
    }
    return quote;
  }
}

/**
 * The coupon spread over the lines it applies to (a product coupon: its products; otherwise every
 * line), in proportion to what each costs after its volume discount, adding up exactly.
 */
function shareCoupon(amount: number, lines: LineState[], eligible: (productId: string) => boolean): number[] {
  const weights = lines.map((l) => (eligible(l.productId) ? l.quantity * l.unitPrice - l.volumeDiscount : 0));
  const base = weights.some((w) => w > 0) ? weights : lines.map((l) => l.quantity * l.unitPrice - l.volumeDiscount);
  return allocate(amount, base);
}

/** The products of the variants found, each once. */
function productsOf(catalog: Map<string, Sellable>): string[] {
  return [...new Set([...catalog.values()].map((s) => s.product.id))];
}

/** The catalog's truth about a line. */
function catalogFacts({ variant, product }: Sellable) {
  return {
    productId: product.id,
    title: product.title,
    variantTitle: variant.title,
    sku: variant.sku,
    unitPrice: variant.price,
    requiresShipping: variant.requiresShipping,
    imageUrl: product.images[0]?.url ?? null,
    weightGrams: variant.weightGrams,
    taxable: variant.taxable,
  };
}

export const REFRESHED = ['productId', 'title', 'variantTitle', 'sku', 'unitPrice', 'requiresShipping', 'imageUrl', 'weightGrams', 'taxable', 'volumeDiscount'] as const;

/** Copies the priced line onto the stored one, touching only what changed (no needless UPDATE). */
export function refreshLine(item: Pick<CartItem, (typeof REFRESHED)[number] | 'updatedAt'>, line: LineState, now: Date): void {
  let changed = false;
  for (const key of REFRESHED) {
    if (item[key] !== line[key]) {
      (item as Record<string, unknown>)[key] = line[key];
      changed = key !== 'volumeDiscount' || changed;
    }
  }
  if (changed) item.updatedAt = now;
}
