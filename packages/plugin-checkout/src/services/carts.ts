import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AppError, CustomFields, Database, expectSql, FactCache, isExpectationFailure, statementText, statementTexts, TenantContext, uuidArray, type CustomFieldValues, type SqlTx, type Tx, type TxReader } from '@qhatu/core';
import { sellablesFrom, sellablesSql } from '@qhatu/plugin-catalog';
import { Customer } from '@qhatu/plugin-customers';
import { normalizeCode } from '@qhatu/plugin-discounts';
import { inject, injectable } from 'tsyringe';
import { Cart } from '../entities/cart.js';
import { CartItem } from '../entities/cart-item.js';
import { Checkout } from '../entities/checkout.js';
import { CartPricing, refreshLine, type PricingReads, type PricingVersions, type Sellable } from './pricing.js';
import { cartMarket, type AskedMarket } from './markets.js';
import { CHECKOUT_SETTINGS, type CheckoutSettings } from './settings.js';
import { cartEvent, pricedCart, type CartView } from './views.js';

export const CART_CREATED = 'checkout.cart.created';
export const CART_UPDATED = 'checkout.cart.updated';
export const CART_EVENTS = [CART_CREATED, CART_UPDATED] as const;

/** Who is calling: a customer (their own carts only) or the store's keys (any cart of the store). */
export interface Shopper {
  customerId: string | null;
}

export interface CartInput {
  customer_id?: string | null;
  session_id?: string | null;
  /** One the store sells in; with a market, the market's. */
  currency?: string;
  /** The market the cart is made in, by handle, and where the request named it. */
  market?: AskedMarket | null;
  /** Checked here: storefront keys and customers set the public fields only. */
  custom_fields?: unknown;
}

/** The checkout API's code for bad input (the specification's). */
const INPUT = { code: 'INVALID_REQUEST' } as const;

export interface CartItemInput {
  variant_id: string;
  quantity: number;
  /** Checked against the variant when sent; everything else a client may send is the catalog's to say. */
  product_id?: string;
  /** A seller's offer of the variant's product (see `addOffer`). */
  offer_id?: string;
}

/** A line named by its variant (REST) or by its own id (GraphQL). */
export type LineRef = { variantId: string } | { itemId: string };

@injectable()
export class Carts {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(CartPricing) private readonly pricing: CartPricing,
    @inject(CHECKOUT_SETTINGS) private readonly settings: CheckoutSettings,
    @inject(FactCache) private readonly facts: FactCache,
    @inject(CustomFields) private readonly fields: CustomFields,
  ) {}

  /** The view as the caller sees it: the custom fields it may see, defaults filled in (the rest as stored and priced). */
  private shown<V extends CartView>(view: V): V {
    return { ...view, cart: { ...view.cart, customFields: this.fields.present('cart', view.cart.customFields) } };
  }

  async create(input: CartInput, shopper: Shopper): Promise<CartView> {
    if (shopper.customerId && input.customer_id && input.customer_id !== shopper.customerId) {
      throw AppError.forbidden('A customer can make carts for themselves only');
    }
    const customFields = this.fields.create('cart', input.custom_fields, INPUT);
    // Chosen before anything is read: the store's currencies and markets came with the caller's token.
    const choice = cartMarket(input.market ?? null, input.currency);
    return this.db.tenant(async (tx) => {
      if (!shopper.customerId && input.customer_id) await assertCustomer(tx, input.customer_id);
      const at = tx.now();
      const store = await this.storeFacts(tx);
      const cart = tx.em.create(Cart, {
        ...blankCart(tx, at, this.settings.cartTtlMs),
        customerId: shopper.customerId ?? input.customer_id ?? null,
        sessionId: input.session_id ?? null,
        currency: choice?.currency || input.currency || store.currency,
        marketId: choice?.market?.id ?? null,
        marketPricesIncludeTax: choice?.pricesIncludeTax ?? null,
        customFields,
      });
      // Priced empty as a read prices it: whether the prices include the tax is the market's say, else the store's tax settings'.
      cart.pricesIncludeTax = (await this.pricing.quote(tx, cart, [], new Map(), undefined, store.read)).totals.pricesIncludeTax;
      tx.publish(CART_CREATED, cartEvent(cart));
      return this.shown({ cart, items: [] });
    });
  }

  /**
   * Writes custom fields over the cart's stored ones (400 INVALID_REQUEST naming a bad one); the
   * cart is answered priced now, its expiry moved as any change moves it. A frozen cart is 409 CART_FROZEN.
   */
  async setCustomFields(id: string, given: unknown, shopper: Shopper): Promise<CartView> {
    const changes = this.fields.changes('cart', given, INPUT);
    return this.db.tenant(async (tx) => {
      const cart = await this.find(tx, id, shopper, true);
      if (cart.checkoutId) throw frozen(cart.checkoutId);
      const at = tx.now();
      cart.customFields = { ...cart.customFields, ...changes };
      cart.updatedAt = at;
      cart.expiresAt = new Date(at.getTime() + this.settings.cartTtlMs);
      const { lines, totals } = await this.pricing.quote(tx, cart, await tx.em.find(CartItem, { cartId: cart.id }));
      tx.publish(CART_UPDATED, cartEvent(cart));
      return this.shown({ cart: pricedCart(cart, totals), items: lines });
    });
  }

  /** The store's currency and what pricing an empty cart reads (the tax facts at its origin), in one statement. */
  private async storeFacts(tx: Tx): Promise<{ currency: string; read: PricingReads }> {
    // Prepared: planning its sub-selects costs several times what running them does.
    const [row] = await tx.query<{ currency: string }>(this.storeFactsSql(), [tx.tenantId], { prepare: true });
    return { currency: row.currency.trim(), read: this.pricing.readsFrom(row) };
  }

  private readonly storeFactsSql = statementText(() => {
    const none = 'select null::uuid where false';
    return `select t.currency, ${this.pricing.readsSql('t.id', none, none)} from core_tenant t where t.id = ?`;
  });

  /**
   * The cart priced now (catalog prices, volume discounts, the coupon still valid?), computed
   * without writing: the answer is what a checkout of it would charge. A frozen cart is answered
   * as it was checked out; its checkout says what is charged.
   */
  async get(id: string, shopper: Shopper): Promise<CartView> {
    // Without the ORM: the cart, its lines and what pricing reads of them in one prepared statement.
    return this.db.write(async (sql) => {
      const { cart, items, catalog, read } = await this.withLines(sql, id, shopper, null, false);
      if (cart.checkoutId) return this.shown({ cart, items });
      const { lines, totals } = await this.pricing.quote(sql, cart, items, catalog, undefined, read);
      return this.shown({ cart: pricedCart(cart, totals), items: lines });
    });
  }

  /**
   * For a recovery link (the caller vouches for it; no shopper check), in the caller's
   * transaction: the cart to go on with. An open cart is itself, priced now; a cart frozen by an
   * abandoned checkout is copied into a new open cart (customer, session, currency, coupon and
   * lines; priced and stored now); a cart whose checkout is live or completed is answered as it is.
   * Returns the cart and whether it is a new one. 404 CART_NOT_FOUND, 410 CART_EXPIRED.
   */
  async restore(tx: Tx, cartId: string): Promise<CartView & { copied: boolean }> {
    const cart = await this.find(tx, cartId, { customerId: null }, true);
    const items = await tx.em.find(CartItem, { cartId: cart.id });
    if (!cart.checkoutId) {
      const { lines, totals } = await this.pricing.quote(tx, cart, items);
      return this.shown({ cart: pricedCart(cart, totals), items: lines, copied: false });
    }
    const checkout = await tx.em.findOne(Checkout, { id: cart.checkoutId });
    if (checkout?.status !== 'abandoned') return this.shown({ cart, items, copied: false });
    const at = tx.now();
    const copy = tx.em.create(Cart, {
      ...blankCart(tx, at, this.settings.cartTtlMs),
      customerId: cart.customerId,
      sessionId: cart.sessionId,
      currency: cart.currency,
      marketId: cart.marketId,
      marketPricesIncludeTax: cart.marketPricesIncludeTax,
      couponCode: cart.couponCode,
      customFields: cart.customFields,
    });
    const lines = items.map((item) =>
      tx.em.create(CartItem, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        cartId: copy.id,
        variantId: item.variantId,
        productId: item.productId,
        title: item.title,
        variantTitle: item.variantTitle,
        sku: item.sku,
        quantity: item.quantity,
        unitPrice: item.unitPrice,
        volumeDiscount: 0,
        requiresShipping: item.requiresShipping,
        imageUrl: item.imageUrl,
        weightGrams: item.weightGrams,
        taxable: item.taxable,
        offerId: item.offerId,
        // The lines keep their order.
        createdAt: item.createdAt,
        updatedAt: at,
      }),
    );
    const kept = await this.pricing.reprice(tx, copy, lines);
    tx.publish(CART_CREATED, cartEvent(copy));
    return this.shown({ cart: copy, items: kept, copied: true });
  }

  /** Adds a variant at its catalog price; the same variant again raises the line's quantity. */
  async addItem(id: string, input: CartItemInput, shopper: Shopper): Promise<CartView> {
    return this.change(id, shopper, input.variant_id, async (sql, cart, items, catalog) => {
      const sellable = catalog.get(input.variant_id);
      if (!sellable || (input.product_id && input.product_id !== sellable.product.id)) {
        throw AppError.unprocessable('VARIANT_NOT_FOUND', 'This variant is not in the store', [
          { path: sellable ? 'body.product_id' : 'body.variant_id', message: sellable ? 'is not the product of this variant' : 'no such variant' },
        ]);
      }
      if (sellable.product.status !== 'active') {
        throw AppError.unprocessable('PRODUCT_NOT_AVAILABLE', 'This product is not for sale', [{ path: 'body.variant_id', message: `its product is ${sellable.product.status}` }]);
      }
      // Whether it sells in the cart's currency is the price resolution's say, when the cart is priced.
      const refusal = AppError.unprocessable('CURRENCY_MISMATCH', `This variant has no price in ${cart.currency}, the cart's currency`, [
        { path: 'body.variant_id', message: 'is not for sale in the cart\u2019s currency', currency: cart.currency },
      ]);
      const existing = items.find((i) => i.variantId === input.variant_id);
      if (existing) {
        existing.quantity += input.quantity;
        existing.updatedAt = sql.now();
        return { items, sells: { variantId: input.variant_id, refusal } };
      }
      return { items: [...items, newLine(sql, cart, sellable, input.quantity, null)], sells: { variantId: input.variant_id, refusal } };
    });
  }

  /**
   * Adds a variant bought on a seller's offer (a marketplace), at the offer's price. The offer must
   * be for sale and of the variant's product (422 OFFER_NOT_AVAILABLE) and have the units left (409
   * OFFER_OUT_OF_STOCK; the units are held when the order is placed). A variant is in a cart once,
   * on the store's stock or on one offer (409 OFFER_MISMATCH).
   */
  async addOffer(id: string, input: CartItemInput & { offer_id: string }, shopper: Shopper): Promise<CartView> {
    return this.change(id, shopper, input.variant_id, async (sql, cart, items, catalog) => {
      const existing = items.find((i) => i.variantId === input.variant_id);
      if (existing && existing.offerId !== input.offer_id) {
        throw AppError.conflict('This variant is already in the cart from another seller (or the store); remove that line first', 'OFFER_MISMATCH', [
          { path: 'body.offer_id', message: 'the line of this variant has another offer', offer_id: existing.offerId ?? null },
        ]);
      }
      const sellable = catalog.get(input.variant_id);
      const offer = (await this.pricing.offersOf(sql, [{ offerId: input.offer_id }])).get(input.offer_id);
      const notForSale = AppError.unprocessable('VARIANT_NOT_FOUND', 'This variant is not for sale in this cart', [{ path: 'body.variant_id', message: 'no such variant for sale in this currency' }]);
      if (!sellable || sellable.product.status !== 'active' || (input.product_id && input.product_id !== sellable.product.id)) throw notForSale;
      if (!offer || offer.productId !== sellable.product.id) {
        throw AppError.unprocessable('OFFER_NOT_AVAILABLE', 'This offer is not for sale, or is not of this variant', [{ path: 'body.offer_id', message: 'no such offer for sale' }]);
      }
      const quantity = (existing?.quantity ?? 0) + input.quantity;
      if (quantity > offer.available) {
        throw AppError.conflict(`The seller has ${offer.available} left of this offer`, 'OFFER_OUT_OF_STOCK', [{ path: 'body.quantity', message: `at most ${offer.available} in all`, available: offer.available }]);
      }
      // In the cart's currency or not: the pricing's say (an offer sells in its variant's currency).
      const sells = { variantId: input.variant_id, refusal: notForSale };
      if (existing) {
        existing.quantity = quantity;
        existing.updatedAt = sql.now();
        return { items, sells };
      }
      return { items: [...items, newLine(sql, cart, sellable, quantity, input.offer_id)], sells };
    });
  }

  async setQuantity(id: string, ref: LineRef, quantity: number, shopper: Shopper): Promise<CartView> {
    return this.change(id, shopper, null, async (sql, _cart, items) => {
      const item = lineOf(items, ref);
      if (item.quantity !== quantity) {
        item.quantity = quantity;
        item.updatedAt = sql.now();
      }
      return { items };
    });
  }

  async removeItem(id: string, ref: LineRef, shopper: Shopper): Promise<CartView> {
    return this.change(id, shopper, null, async (_sql, _cart, items) => {
      const item = lineOf(items, ref);
      return { items: items.filter((i) => i !== item) };
    });
  }

  /** Sets the cart's coupon when it applies to the cart now; otherwise 422 COUPON_INVALID with the reason. */
  async applyCoupon(id: string, code: string, shopper: Shopper): Promise<CartView> {
    // The quote of the change looks the coupon up: one that is unknown or does not apply is refused there, and nothing is written.
    return this.change(id, shopper, null, async (_sql, cart, items) => {
      cart.couponCode = normalizeCode(code);
      return { items, requireCoupon: true };
    });
  }

  async removeCoupon(id: string, shopper: Shopper): Promise<CartView> {
    return this.change(id, shopper, null, async (_sql, cart, items) => {
      cart.couponCode = null;
      return { items };
    });
  }

  /**
   * One change to an open cart, without the ORM: lock it and read its lines with their variants
   * (and `variantId`'s), apply `work`, reprice everything from the catalog, move the expiry, and
   * write what changed (lines, the cart, the outbox row of `checkout.cart.updated`) with COMMIT.
   *
   * When this process knows the cart and what it is priced with (decision 0049), the change is
   * worked out first and sent in one round trip behind a guard that locks the cart and checks that
   * the cart's row and the store's versions are still the ones known. A change that would read
   * (a coupon, an offer, a buyer's price list) or refuse, or whose guard fails, runs the usual way.
   */
  private async change(
    id: string,
    shopper: Shopper,
    variantId: string | null,
    work: (sql: SqlTx, cart: Cart, items: CartItem[], catalog: Map<string, Sellable>) => Promise<ChangeResult>,
  ): Promise<CartView> {
    const known = await this.changeKnown(id, shopper, variantId, work);
    if (known.view) return this.shown(known.view);
    return this.shown(await this.db.write(async (sql) => this.applyChange(sql, await this.withLines(sql, id, shopper, variantId, true, known.stale), work)));
  }

  /** `change` from what the process knows, in one round trip; `stale` when the guard found the cart or the store's versions moved. */
  private async changeKnown(
    id: string,
    shopper: Shopper,
    variantId: string | null,
    work: (sql: SqlTx, cart: Cart, items: CartItem[], catalog: Map<string, Sellable>) => Promise<ChangeResult>,
  ): Promise<{ view?: CartView; stale?: boolean }> {
    const tenantId = TenantContext.tenantId();
    const last = this.remembered(tenantId, id);
    if (!last) return {};
    const known = this.pricing.known(tenantId, last.value.versions, variantsOf(last.value.items, variantId));
    if (!known) return {};
    try {
      const view = await this.db.write(async (sql) => {
        let xact: string | null = null;
        sql.later<{ xact: string }>(this.guardSql(), [...revisionParts(last.version), JSON.stringify(last.value.versions), sql.tenantId, id], {
          prepare: true,
          rows: (rows) => (xact = rows[0].xact),
        });
        // Nothing may be read: what would need the database goes the usual way.
        const blind: SqlTx = { ...sql, query: () => Promise.reject(NEEDS_READ), batch: () => Promise.reject(NEEDS_READ) };
        const cart = alive(sql, { ...last.value.cart }, shopper);
        const items = copies(last.value.items);
        return this.applyChange(blind, { cart, items, ...known, versions: last.value.versions, xact: () => xact }, work);
      }, tenantId);
      return { view };
    } catch (error) {
      if (isExpectationFailure(error)) return { stale: true };
      // A read needed, or a refusal worked out from memory: the usual way reads and decides.
      if (error === NEEDS_READ || error instanceof AppError) return {};
      throw error;
    }
  }

  /** The change itself, on the cart and lines loaded (from the database or from memory). */
  private async applyChange(
    sql: SqlTx,
    { cart, items: loaded, catalog, read, versions, xact }: LoadedCart,
    work: (sql: SqlTx, cart: Cart, items: CartItem[], catalog: Map<string, Sellable>) => Promise<ChangeResult>,
  ): Promise<CartView> {
    if (cart.checkoutId) throw frozen(cart.checkoutId);
    const before = new Map(loaded.map((item) => [item.id, lineFacts(item)]));
    const { items, requireCoupon, sells } = await work(sql, cart, loaded, catalog);
    const { lines, kept, dropped, totals } = await this.pricing.quote(sql, cart, items, catalog, undefined, read);
    if (sells && dropped.some((item) => item.variantId === sells.variantId)) throw sells.refusal;
    const at = sql.now();
    kept.forEach((item, n) => refreshLine(item, lines[n], at));
    Object.assign(cart, totals);
    if (requireCoupon && cart.couponRefusal) {
      throw AppError.unprocessable('COUPON_INVALID', 'This coupon does not apply to this cart', [
        { path: 'body.code', message: cart.couponRefusal, reason: cart.couponRefusal },
      ]);
    }
    cart.updatedAt = at;
    cart.expiresAt = new Date(at.getTime() + this.settings.cartTtlMs);
    writeLines(sql, before, kept);
    sql.later(
      `update checkout_cart set coupon_code = ?, coupon_refusal = ?, item_count = ?, subtotal = ?, volume_discount_total = ?, coupon_discount = ?,
              tax_total = ?, prices_include_tax = ?, market_prices_include_tax = ?, total = ?, expires_at = ?, updated_at = ?
        where tenant_id = ? and id = ?`,
      [cart.couponCode, cart.couponRefusal, cart.itemCount, cart.subtotal, cart.volumeDiscountTotal, cart.couponDiscount,
        cart.taxTotal, cart.pricesIncludeTax, cart.marketPricesIncludeTax, cart.total, cart.expiresAt, cart.updatedAt, sql.tenantId, cart.id],
      { prepare: true },
    );
    sql.publish(CART_UPDATED, cartEvent(cart));
    // Once committed, the cart's row is at a version this process can name: remember it and its lines there.
    const state: KnownCart = { cart: { ...cart }, items: copies(kept), versions };
    sql.afterCommit(() => {
      const id = xact();
      if (id) this.facts.remember(sql.tenantId, CART_TOPIC, cart.id, revisionAfter(id, at), state, knownBytes(kept));
    });
    return { cart, items: lines };
  }

  /**
   * The guard of a change sent from memory: locks the cart and raises unless its row and the
   * store's versions are the known ones (the row gone reads as moved); names the transaction.
   */
  private readonly guardSql = statementText(
    () => `select ${expectSql(
      `coalesce((select c.xmin::text = ? and c.updated_at = ?::timestamptz and ${this.pricing.versionsSql('c.tenant_id')}::jsonb = ?::jsonb
                   from checkout_cart c where c.tenant_id = ? and c.id = ? for update), false)`,
      'the cart or what it is priced with changed',
    )} as ok, pg_current_xact_id()::text as xact`,
  );

  /**
   * The cart locked for the rest of `sql`'s transaction, with its lines, their catalog facts and
   * what pricing reads of them, in one round trip (or from what the process knows: `withLines`).
   */
  async locked(sql: SqlTx, id: string, shopper: Shopper): Promise<LoadedCart> {
    return this.withLines(sql, id, shopper, null, true);
  }

  /** The cart, if the caller may see it, and still alive; locked for the rest of the transaction when asked. */
  async find(tx: Tx, id: string, shopper: Shopper, lock: boolean): Promise<Cart> {
    const cart = await tx.em.findOne(Cart, { id }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {});
    return alive(tx, cart, shopper);
  }

  /** The read of `withLines` (the same texts every time: they are prepared); with `lock`, it names the transaction too. */
  private readonly fullReadSql = statementTexts(
    (lock: boolean) => `
      with variants as (select i.variant_id as id from checkout_cart_item i where i.tenant_id = ? and i.cart_id = ? union select ?::uuid),
           products as (select v.product_id as id from variants x join catalog_variant v on v.tenant_id = ? and v.id = x.id)
      select c.*, c.xmin::text as revision, ${lock ? 'pg_current_xact_id()::text' : 'null'} as xact,
             coalesce((select json_agg(i order by i.created_at, i.id) from checkout_cart_item i
                        where i.tenant_id = c.tenant_id and i.cart_id = c.id), '[]'::json) as items,
             ${sellablesSql('c.tenant_id', 'select id from variants')} as sellables,
             ${this.pricing.readsSql('c.tenant_id', 'select id from variants', 'select id from products')},
             ${this.pricing.versionsSql('c.tenant_id')} as fact_versions
        from checkout_cart c where c.tenant_id = ? and c.id = ?`,
  );

  /** The cart's row, its row version and the versions of what pricing reads; with `lock`, locked, and naming the transaction. */
  private readonly headSql = statementTexts(
    (lock: boolean) => `
      select c.*, c.xmin::text as revision, ${lock ? 'pg_current_xact_id()::text' : 'null'} as xact, ${this.pricing.versionsSql('c.tenant_id')} as fact_versions
        from checkout_cart c where c.tenant_id = ? and c.id = ?${lock ? ' for update' : ''}`,
  );

  /** What this process last remembered of the cart, at the row version it was remembered at. */
  private remembered(tenantId: string, id: string): Remembered | undefined {
    return this.facts.recall(tenantId, CART_TOPIC, id) as Remembered | undefined;
  }

  /**
   * The cart (404 for another customer's, 410 when expired), its lines, the catalog's facts of
   * their variants (and of `variantId`) and what pricing reads of them (volume tiers, the tax
   * tables). With `lock`, the cart's lock first, in a statement of its own: what is read after it
   * sees every line a change that held the lock before committed.
   *
   * What this process last knew of the cart (its lines at a row version of the cart) and of the
   * store's facts at their versions is used when the statement that locks the cart finds the same
   * versions (decision 0049): one round trip, the lines and facts from memory. When it knows
   * nothing of the cart, or not the facts of its variants, the lock and the whole read go in one
   * round trip; when the versions turn out to have moved (another process changed the cart, the
   * store changed its catalog), the whole read follows in a second.
   */
  private async withLines(sql: SqlTx, id: string, shopper: Shopper, variantId: string | null, lock: boolean, stale = false): Promise<LoadedCart> {
    const last = stale ? undefined : this.remembered(sql.tenantId, id);
    const expected = last && this.pricing.known(sql.tenantId, last.value.versions, variantsOf(last.value.items, variantId));
    const hopeful = expected !== undefined;
    if (hopeful) {
      const [row] = await sql.batch<Record<string, unknown>>([{ sql: this.headSql(lock), params: [sql.tenantId, id], prepare: true }]);
      const cart = alive(sql, row ? cartFromRow(row) : null, shopper);
      const versions = row.fact_versions as PricingVersions;
      // Another change of this process may have committed meanwhile: what it remembered counts.
      const kept = this.remembered(sql.tenantId, id);
      if (kept?.version === revisionOf(row)) {
        const items = copies(kept.value.items);
        const known =
          kept === last && sameVersions(versions, last.value.versions) ? expected : this.pricing.known(sql.tenantId, versions, variantsOf(items, variantId));
        if (known) return { cart, items, ...known, versions, xact: () => row.xact as string | null };
      }
      // Moved on since (or frozen: its lines are read as they are).
      if (cart.checkoutId && lock) return { cart, items: [], catalog: new Map(), read: {}, versions, xact: () => null };
    }
    // Both statements are prepared on the connection: the read's planning costs more than its run.
    const read = { sql: this.fullReadSql(lock), params: [sql.tenantId, id, variantId, sql.tenantId, sql.tenantId, id], prepare: true };
    const [row] = await sql.batch<Record<string, unknown>>(
      lock && !hopeful ? [{ sql: 'select 1 from checkout_cart where tenant_id = ? and id = ? for update', params: [sql.tenantId, id], prepare: true }, read] : [read],
    );
    const cart = alive(sql, row ? cartFromRow(row) : null, shopper);
    const items = (row.items as Array<Record<string, unknown>>).map(lineFromJson);
    const catalog = sellablesFrom(row.sellables);
    const versions = row.fact_versions as PricingVersions;
    const reads = this.pricing.readsFrom(row);
    this.pricing.keep(sql.tenantId, versions, variantsOf(items, variantId), catalog, row.sellables, reads);
    const state: KnownCart = { cart: { ...cart }, items: copies(items), versions };
    this.facts.remember(sql.tenantId, CART_TOPIC, id, revisionOf(row), state, knownBytes(items));
    return { cart, items, catalog, read: reads, versions, xact: () => row.xact as string | null };
  }
}

/** What a change made of the lines, and the variant it sells (refused with `refusal` when the pricing drops it: not for sale in the cart's currency). */
interface ChangeResult {
  items: CartItem[];
  requireCoupon?: boolean;
  sells?: { variantId: string; refusal: AppError };
}

/** What `withLines` answers. */
export interface LoadedCart {
  cart: Cart;
  items: CartItem[];
  catalog: Map<string, Sellable>;
  read: PricingReads;
  /** The versions of the store's facts the read was made at. */
  versions: PricingVersions;
  /** The locking transaction's id (`pg_current_xact_id`), when locked (known once the guard of a change from memory has run). */
  xact: () => string | null;
}

/** What a process remembers of a cart (`FactCache.remember`, under its row version): its row and lines as stored, and the versions their facts were read at. */
interface KnownCart {
  cart: Cart;
  items: CartItem[];
  versions: PricingVersions;
}

type Remembered = { version: string; value: KnownCart };

/** Thrown by a change sent from memory when it would read: it then runs the usual way. */
const NEEDS_READ = new Error('A change from memory needs a read');

const CART_TOPIC = 'checkout.cart';

/** About what a remembered cart holds: its lines' fields and texts (estimated, not measured: it is set on every change). */
const knownBytes = (items: CartItem[]) => 512 + items.length * 1024;

/**
 * A cart row's version: its `xmin` (the transaction that wrote it: every write of a cart's lines
 * writes the cart's row too) and its `updated_at`, which tells two rows of the same 32-bit `xmin`
 * apart after a wraparound.
 */
function revisionOf(row: Record<string, unknown>): string {
  return `${row.revision as string}/${new Date(row.updated_at as Date).getTime()}`;
}

/** A revision's `xmin` and `updated_at`, as the guard compares them. */
function revisionParts(revision: string): [string, Date] {
  const [xmin, at] = revision.split('/');
  return [xmin, new Date(Number(at))];
}

/** The revision the cart's row has once a change by transaction `xact` (`pg_current_xact_id`) committed at `updatedAt`. */
function revisionAfter(xact: string, updatedAt: Date): string {
  return `${BigInt(xact) & 0xffffffffn}/${updatedAt.getTime()}`;
}

function sameVersions(a: PricingVersions, b: PricingVersions): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

/** Lines to change or to keep, apart from the ones remembered (a change alters its lines in place). */
const copies = (items: CartItem[]): CartItem[] => items.map((item) => ({ ...item }));

/** The variants a quote of `items` (and of `variantId`) reads, each once. */
function variantsOf(items: Array<{ variantId: string }>, variantId: string | null): string[] {
  const ids = new Set(items.map((i) => i.variantId));
  if (variantId) ids.add(variantId);
  return [...ids];
}

/** A new line of `sellable`, priced when the change reprices the cart. */
function newLine(sql: SqlTx, cart: Cart, sellable: Sellable, quantity: number, offerId: string | null): CartItem {
  const at = sql.now();
  return {
    id: randomUUID(), tenantId: sql.tenantId, cartId: cart.id, variantId: sellable.variant.id, productId: sellable.product.id,
    title: sellable.product.title, variantTitle: null, sku: null, quantity, unitPrice: sellable.variant.price, volumeDiscount: 0,
    requiresShipping: true, imageUrl: null, weightGrams: null, taxable: true, offerId, createdAt: at, updatedAt: at,
  } as CartItem;
}

/** What a change may alter of a stored line: an UPDATE is sent only when these differ. */
export const lineFacts = (l: CartItem) =>
  JSON.stringify([l.quantity, l.unitPrice, l.volumeDiscount, l.productId, l.title, l.variantTitle, l.sku, l.requiresShipping, l.imageUrl, l.weightGrams, l.taxable]);

/** Queues the lines' writes (prepared: the same texts every time): the lines no longer kept deleted, the new ones inserted, the changed ones updated. */
export function writeLines(sql: SqlTx, before: Map<string, string>, kept: CartItem[]): void {
  const keptIds = new Set(kept.map((l) => l.id));
  const gone = [...before.keys()].filter((id) => !keptIds.has(id));
  const prepare = { prepare: true };
  if (gone.length > 0) sql.later('delete from checkout_cart_item where tenant_id = ? and id = any(?::uuid[])', [sql.tenantId, uuidArray(gone)], prepare);
  for (const l of kept) {
    const was = before.get(l.id);
    if (was === undefined) {
      sql.later(
        `insert into checkout_cart_item (tenant_id, id, cart_id, variant_id, product_id, title, variant_title, sku, quantity, unit_price, volume_discount,
                                         requires_shipping, image_url, weight_grams, taxable, offer_id, created_at, updated_at)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [sql.tenantId, l.id, l.cartId, l.variantId, l.productId, l.title, l.variantTitle, l.sku, l.quantity, l.unitPrice, l.volumeDiscount,
          l.requiresShipping, l.imageUrl, l.weightGrams, l.taxable, l.offerId ?? null, l.createdAt, l.updatedAt],
        prepare,
      );
    } else if (was !== lineFacts(l)) {
      sql.later(
        `update checkout_cart_item set product_id = ?, title = ?, variant_title = ?, sku = ?, quantity = ?, unit_price = ?, volume_discount = ?,
                requires_shipping = ?, image_url = ?, weight_grams = ?, taxable = ?, updated_at = ?
          where tenant_id = ? and id = ?`,
        [l.productId, l.title, l.variantTitle, l.sku, l.quantity, l.unitPrice, l.volumeDiscount,
          l.requiresShipping, l.imageUrl, l.weightGrams, l.taxable, l.updatedAt, sql.tenantId, l.id],
        prepare,
      );
    }
  }
}

/** A `checkout_cart` row read with SQL, as the entity's fields (bigints as numbers). */
function cartFromRow(row: Record<string, unknown>): Cart {
  return {
    id: row.id, tenantId: row.tenant_id, customerId: row.customer_id ?? null, sessionId: row.session_id ?? null, currency: (row.currency as string).trim(),
    marketId: row.market_id ?? null, marketPricesIncludeTax: row.market_prices_include_tax ?? null,
    couponCode: row.coupon_code ?? null, couponRefusal: row.coupon_refusal ?? null, itemCount: Number(row.item_count), subtotal: Number(row.subtotal),
    volumeDiscountTotal: Number(row.volume_discount_total), couponDiscount: Number(row.coupon_discount), taxTotal: Number(row.tax_total),
    pricesIncludeTax: Boolean(row.prices_include_tax), total: Number(row.total), checkoutId: row.checkout_id ?? null,
    customFields: (row.custom_fields as CustomFieldValues | null) ?? {},
    expiresAt: new Date(row.expires_at as Date), createdAt: new Date(row.created_at as Date), updatedAt: new Date(row.updated_at as Date),
  } as Cart;
}

/** A `checkout_cart_item` row as `json_agg` gives it, as the entity's fields. */
function lineFromJson(row: Record<string, unknown>): CartItem {
  return {
    id: row.id, tenantId: row.tenant_id, cartId: row.cart_id, variantId: row.variant_id, productId: row.product_id, title: row.title,
    variantTitle: row.variant_title ?? null, sku: row.sku ?? null, quantity: Number(row.quantity), unitPrice: Number(row.unit_price),
    volumeDiscount: Number(row.volume_discount), requiresShipping: Boolean(row.requires_shipping), imageUrl: row.image_url ?? null,
    weightGrams: row.weight_grams == null ? null : Number(row.weight_grams), taxable: Boolean(row.taxable), offerId: row.offer_id ?? null,
    createdAt: new Date(row.created_at as string), updatedAt: new Date(row.updated_at as string),
  } as CartItem;
}

/** The cart when the shopper may see it and it has not expired: 404 CART_NOT_FOUND, 410 CART_EXPIRED. */
function alive(tx: TxReader, cart: Cart | null, shopper: Shopper): Cart {
  // Another customer's cart is answered like a missing one: cart ids are not to be probed.
  if (!cart || (shopper.customerId && cart.customerId !== shopper.customerId)) throw AppError.notFound('Cart', 'CART_NOT_FOUND');
  if (cart.expiresAt.getTime() <= tx.now().getTime()) {
    throw new AppError(410, 'CART_EXPIRED', 'This cart has expired', [{ message: 'expired', expires_at: cart.expiresAt.toISOString() }]);
  }
  return cart;
}

/** A new, empty cart of the tenant, living `ttlMs` from `at`. */
function blankCart(tx: Tx, at: Date, ttlMs: number) {
  return {
    id: randomUUID(),
    tenantId: tx.tenantId,
    customerId: null,
    sessionId: null,
    marketId: null,
    marketPricesIncludeTax: null,
    couponCode: null,
    couponRefusal: null,
    itemCount: 0,
    subtotal: 0,
    volumeDiscountTotal: 0,
    couponDiscount: 0,
    taxTotal: 0,
    pricesIncludeTax: false,
    total: 0,
    checkoutId: null,
    customFields: {},
    expiresAt: new Date(at.getTime() + ttlMs),
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * A customer named by store keys must be a customer of this store (another store's or nobody's is
 * 422 CUSTOMER_NOT_FOUND, like any unknown reference) and not disabled. A customer token's own id
 * is its own customer.
 */
export async function assertCustomer(tx: Tx, customerId: string): Promise<void> {
  const customer = await tx.em.findOne(Customer, { id: customerId });
  if (!customer) {
    throw AppError.unprocessable('CUSTOMER_NOT_FOUND', 'This customer is not a customer of the store', [{ path: 'body.customer_id', message: 'no such customer' }]);
  }
  if (customer.status !== 'active') {
    throw AppError.unprocessable('CUSTOMER_DISABLED', 'This customer is disabled', [{ path: 'body.customer_id', message: `the customer is ${customer.status}` }]);
  }
}

const frozen = (checkoutId: string) =>
  AppError.conflict('This cart has a checkout and can no longer change', 'CART_FROZEN', [{ message: 'frozen by a checkout', checkout_id: checkoutId }]);

function lineOf(items: CartItem[], ref: LineRef): CartItem {
  const item = 'variantId' in ref ? items.find((i) => i.variantId === ref.variantId) : items.find((i) => i.id === ref.itemId);
  if (!item) throw AppError.notFound('Item in the cart', 'ITEM_NOT_FOUND');
  return item;
}
