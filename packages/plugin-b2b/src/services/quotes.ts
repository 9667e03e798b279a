import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AppError, Database, filtersOf, Mailer, paginate, Tenant, TenantContext, type ErrorDetail, type Page, type Tx } from '@qhatu/core';
import { Product, Variant } from '@qhatu/plugin-catalog';
import { LineItem, Orders } from '@qhatu/plugin-orders';
import { inject, injectable } from 'tsyringe';
import { AccountOrder } from '../entities/account-order.js';
import { B2BCustomer } from '../entities/b2b-customer.js';
import { Buyer } from '../entities/buyer.js';
import { Quote, type QuoteItem } from '../entities/quote.js';
import { quoteMachine } from '../machines/quote.js';
import type { QuoteConvert, QuoteCreate, QuoteListQuery } from '../schemas/quote.js';
import { lockCustomer } from './b2b-customers.js';
import { creditOf } from './credit.js';
import { publishQuoteCreated } from './events.js';
import { atQuotedPrices, snapshotRows } from './order-prices.js';
import { PriceListResolver, type ListPrice } from './pricing.js';
import { money, quotePdf } from './quote-pdf.js';

export const quoteNotFound = () => AppError.notFound('Quote', 'QUOTE_NOT_FOUND');
const DAY_MS = 86_400_000;

/** Who acts on a quote: the store (an admin key or staff member), or a buyer of the quote's company. */
export type QuoteActor = { kind: 'store'; id: string | null } | { kind: 'buyer'; customerId: string };

/** The caller as a quote actor. */
export function actorOf(): QuoteActor {
  const principal = TenantContext.principal();
  if (principal?.kind === 'customer') {
    if (!principal.subjectId) throw AppError.unauthenticated('This token does not name a customer');
    return { kind: 'buyer', customerId: principal.subjectId };
  }
  return { kind: 'store', id: TenantContext.principalId() };
}

/** `QT-` and the store's sequence, six digits at least. */
export const quoteNumber = (sequence: number) => `QT-${String(sequence).padStart(6, '0')}`;

/** Quotes: priced through the company's list, numbered without gaps, sent as PDF, answered, placed on account. */
@injectable()
export class Quotes {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(PriceListResolver) private readonly pricing: PriceListResolver,
    @inject(Mailer) private readonly mailer: Mailer,
    @inject(Orders) private readonly orders: Orders,
  ) {}

  async create(input: QuoteCreate): Promise<Quote> {
    return this.db.tenant(async (tx) => {
      const customer = await tx.em.findOne(B2BCustomer, { id: input.b2b_customer_id });
      if (!customer) {
        throw AppError.unprocessable('B2B_CUSTOMER_NOT_FOUND', `B2B customer ${input.b2b_customer_id} does not exist`, [{ path: 'body.b2b_customer_id', message: 'is not a B2B customer of this store' }]);
      }
      if (customer.status === 'disabled') {
        throw AppError.unprocessable('B2B_CUSTOMER_DISABLED', `${customer.companyName} is disabled: it cannot be quoted`, [{ path: 'body.b2b_customer_id', message: 'is disabled' }]);
      }
      const items = await this.price(tx, customer, input.items);
      const subtotal = items.lines.reduce((sum, i) => sum + i.catalog_price * i.quantity, 0);
      const total = items.lines.reduce((sum, i) => sum + i.total, 0);
      const sequence = await nextSequence(tx);
      const quote = tx.em.create(Quote, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        sequence,
        number: quoteNumber(sequence),
        status: 'draft',
        b2bCustomerId: customer.id,
        priceListId: customer.priceListId ?? null,
        currency: items.currency,
        items: items.lines,
        subtotal,
        discount: subtotal - total,
        total,
        notes: input.notes ?? null,
        validDays: input.valid_days,
        validUntil: null,
        sentAt: null,
        sentBy: null,
        acceptedAt: null,
        rejectedAt: null,
        rejectionReason: null,
        decidedBy: null,
        orderId: null,
        convertedAt: null,
        createdAt: tx.now(),
        updatedAt: tx.now(),
      });
      publishQuoteCreated(tx, quote);
      return quote;
    });
  }

  /** The items at the company's list prices, in the order sent (repeated variants merged). */
  private async price(tx: Tx, customer: B2BCustomer, requested: QuoteCreate['items']) {
    const merged = new Map<string, number>();
    for (const i of requested) merged.set(i.variant_id, (merged.get(i.variant_id) ?? 0) + i.quantity);
    const variants = await tx.em.find(Variant, { id: { $in: [...merged.keys()] } });
    const byId = new Map(variants.map((v) => [v.id, v]));
    const products = new Map((await tx.em.find(Product, { id: { $in: [...new Set(variants.map((v) => v.productId))] } })).map((p) => [p.id, p]));
    const problems: ErrorDetail[] = [];
    requested.forEach((item, n) => {
      const variant = byId.get(item.variant_id);
      if (!variant) problems.push({ path: `body.items.${n}.variant_id`, message: 'is not a variant of this store', variant_id: item.variant_id });
      else if (products.get(variant.productId)?.status !== 'active') problems.push({ path: `body.items.${n}.variant_id`, message: 'its product is not for sale', variant_id: item.variant_id });
    });
    if (problems.length > 0) throw AppError.unprocessable('VARIANT_NOT_FOUND', 'Some items are not variants for sale in this store', problems);
    const currencies = [...new Set(variants.map((v) => v.currency))];
    if (currencies.length > 1) throw AppError.unprocessable('MIXED_CURRENCIES', `The variants are priced in ${currencies.join(' and ')}; a quote has one currency`);
    const ordered = [...merged.keys()].map((id) => byId.get(id)!);
    const prices = await this.pricing.priceAll(tx, ordered, await this.pricing.listOf(tx, customer.id));
    const lines: QuoteItem[] = ordered.map((v) => {
      const p = prices.get(v.id)!;
      const product = products.get(v.productId)!;
      const quantity = merged.get(v.id)!;
      const title = v.title && v.title !== 'Default' && v.title !== product.title ? `${product.title} - ${v.title}` : product.title;
      return { variant_id: v.id, product_id: v.productId, title, sku: v.sku ?? null, quantity, catalog_price: p.catalogPrice, unit_price: p.price, total: p.price * quantity, rule_id: p.ruleId, rule: p.rule };
    });
    return { lines, currency: currencies[0] };
  }

  async get(id: string, actor: QuoteActor = { kind: 'store', id: null }): Promise<Quote> {
    return this.db.tenant(async (tx) => {
      const quote = await tx.em.findOne(Quote, { id });
      if (!quote || !(await this.visible(tx, quote, actor))) throw quoteNotFound();
      return quote;
    });
  }

  /** A page of quotes; a buyer sees its company's quotes that were sent to it. */
  async list(query: QuoteListQuery, actor: QuoteActor): Promise<Page<Quote>> {
    return this.db.tenant(async (tx) => {
      const where: Record<string, unknown> = filtersOf(query);
      if (actor.kind === 'buyer') {
        const company = await companyOf(tx, actor.customerId);
        // A shopper of no company has no quotes.
        where.$and = [{ b2bCustomerId: company ?? '00000000-0000-0000-0000-000000000000' }, { status: { $ne: 'draft' } }];
      }
      return paginate(tx.em, Quote, where, query);
    });
  }

  /**
   * draft → sent: the quote goes by e-mail, as a PDF, to the company; it holds `valid_days` from
   * now. The e-mail is sent before the move commits: when it cannot be, nothing changes (502).
   */
  async send(id: string): Promise<Quote> {
    return this.db.tenant(async (tx) => {
      const quote = await lockQuote(tx, id);
      await assertCan(tx, quote, 'send');
      const customer = await tx.em.findOneOrFail(B2BCustomer, { id: quote.b2bCustomerId });
      if (customer.status === 'disabled') {
        throw new AppError(409, 'B2B_CUSTOMER_DISABLED', `${customer.companyName} is disabled: its quotes cannot be sent`, [{ message: 'enable the B2B customer first', b2b_customer_id: customer.id }]);
      }
      const at = tx.now();
      quote.sentAt = at;
      quote.validUntil = new Date(at.getTime() + quote.validDays * DAY_MS);
      const actor = actorOf();
      quote.sentBy = actor.kind === 'store' ? actor.id : null;
      quote.updatedAt = at;
      await quoteMachine.apply(tx, quote, 'send');
      const tenant = await tx.em.findOneOrFail(Tenant, { id: tx.tenantId });
      const pdf = await quotePdf(quote, customer, { name: tenant.name }, at);
      // Written first, so that only the commit itself can follow the e-mail.
      await tx.em.flush();
      try {
        await this.mailer.send({
          tenantId: tx.tenantId,
          to: customer.email,
          subject: `Quote ${quote.number} from ${tenant.name}`,
          text: [
            `Hello ${customer.companyName},`,
            '',
            `Please find attached our quote ${quote.number} for ${money(quote.total, quote.currency)}.`,
            `It is valid until ${quote.validUntil.toISOString().slice(0, 10)}.`,
            '',
            tenant.name,
          ].join('\n'),
          attachments: [{ filename: `${quote.number}.pdf`, content: pdf, contentType: 'application/pdf' }],
        });
      } catch (error) {
        throw new AppError(502, 'MAIL_DELIVERY_FAILED', 'The quote e-mail could not be sent; the quote is still a draft', [{ message: error instanceof Error ? error.message : String(error) }]);
      }
      return quote;
    });
  }

  /** sent → accepted: a buyer of the company, or the store recording the company's answer; not after `valid_until`. */
  async accept(id: string, actor: QuoteActor): Promise<Quote> {
    return this.db.tenant(async (tx) => {
      const quote = await this.lockFor(tx, id, actor);
      if (quoteMachine.can(quote, 'accept')) {
        const customer = await tx.em.findOneOrFail(B2BCustomer, { id: quote.b2bCustomerId });
        if (customer.status === 'disabled') throw new AppError(409, 'B2B_CUSTOMER_DISABLED', `${customer.companyName} is disabled: its quotes cannot be accepted`);
        if (quote.validUntil && tx.now() > quote.validUntil) {
          throw new AppError(409, 'QUOTE_EXPIRED', `Quote ${quote.number} expired on ${quote.validUntil.toISOString()}`, [{ message: 'send a new quote', valid_until: quote.validUntil.toISOString() }]);
        }
      }
      await quoteMachine.apply(tx, quote, 'accept');
      quote.acceptedAt = tx.now();
      quote.decidedBy = decider(actor);
      quote.updatedAt = tx.now();
      return quote;
    });
  }

  /** sent → rejected, with an optional reason. */
  async reject(id: string, actor: QuoteActor, reason: string | null): Promise<Quote> {
    return this.db.tenant(async (tx) => {
      const quote = await this.lockFor(tx, id, actor);
      await quoteMachine.apply(tx, quote, 'reject');
      quote.rejectionReason = reason;
      quote.rejectedAt = tx.now();
      quote.decidedBy = decider(actor);
      quote.updatedAt = tx.now();
      return quote;
    });
  }

  /**
   * accepted → converted: the quote becomes an order on account (pending until paid) at the quoted
   * unit prices, through the orders plugin; once. The company's open balance with this order may
   * not pass its credit limit (422 CREDIT_LIMIT_EXCEEDED), and a company on hold or disabled gets none.
   */
  async convert(id: string, input: QuoteConvert): Promise<Quote> {
    return this.db.tenant(async (tx) => {
      const quote = await lockQuote(tx, id);
      await assertCan(tx, quote, 'convert');
      // The company's row is the lock that orders its conversions: one open balance at a time.
      const customer = await lockCustomer(tx, quote.b2bCustomerId);
      if (customer.status !== 'active') {
        throw new AppError(409, customer.status === 'on_hold' ? 'B2B_CUSTOMER_ON_HOLD' : 'B2B_CUSTOMER_DISABLED', `${customer.companyName} is ${customer.status.replace('_', ' ')}: no orders on account`);
      }
      const credit = await creditOf(tx, customer);
      if (quote.currency !== credit.currency) {
        throw AppError.unprocessable('CREDIT_CURRENCY_MISMATCH', `The quote is in ${quote.currency}; credit is kept in the store currency, ${credit.currency}`);
      }
      const prices = new Map(quote.items.map((i) => [i.variant_id, i.unit_price]));
      const order = await atQuotedPrices(tx, prices, () =>
        this.orders.placeOrder(tx, {
          customerEmail: customer.email,
          lines: quote.items.map((i) => ({ variantId: i.variant_id, quantity: i.quantity })),
          shippingAddress: input.shipping_address ?? null,
          currency: quote.currency,
        }),
      );
      if (credit.openBalance + order.total > credit.creditLimit) {
        throw AppError.unprocessable('CREDIT_LIMIT_EXCEEDED', `This order of ${money(order.total, order.currency)} would take ${customer.companyName}'s open balance past its credit limit`, [
          { credit_limit: credit.creditLimit, open_balance: credit.openBalance, order_total: order.total, available: credit.available, message: 'the open balance plus this order exceeds the credit limit' },
        ]);
      }
      tx.em.create(AccountOrder, { tenantId: tx.tenantId, orderId: order.id, b2bCustomerId: customer.id, quoteId: quote.id, total: order.total, currency: order.currency, credited: 0, settledAt: null, createdAt: tx.now() });
      // The snapshot: what each line was charged (the quote's price, or a lower catalog price since) and the quote's rule.
      const charged = new Map((await tx.em.find(LineItem, { orderId: order.id })).map((l) => [l.variantId, l.unitPriceAmount]));
      const listed: ListPrice[] = quote.items.map((i) => ({
        variantId: i.variant_id,
        catalogPrice: i.catalog_price,
        price: charged.get(i.variant_id) ?? i.unit_price,
        currency: quote.currency,
        priceListId: quote.priceListId ?? null,
        ruleId: i.rule_id,
        b2bCustomerId: customer.id,
        rule: i.rule ?? null,
      }));
      snapshotRows(tx, order.id, listed, quote.id);
      quote.orderId = order.id;
      quote.convertedAt = tx.now();
      quote.updatedAt = tx.now();
      await quoteMachine.apply(tx, quote, 'convert');
      return quote;
    });
  }

  /** The quote, locked, if the actor may answer it (a buyer: its company's quotes only). */
  private async lockFor(tx: Tx, id: string, actor: QuoteActor): Promise<Quote> {
    const quote = await lockQuote(tx, id);
    if (!(await this.visible(tx, quote, actor))) throw quoteNotFound();
    return quote;
  }

  private async visible(tx: Tx, quote: Quote, actor: QuoteActor): Promise<boolean> {
    if (actor.kind === 'store') return true;
    return quote.status !== 'draft' && (await companyOf(tx, actor.customerId)) === quote.b2bCustomerId;
  }
}

/** Throws the machine's 409 when `action` is not allowed from the quote's state (before any field changes). */
async function assertCan(tx: Tx, quote: Quote, action: string): Promise<void> {
  if (!quoteMachine.can(quote, action)) await quoteMachine.apply(tx, quote, action);
}

const decider = (actor: QuoteActor) => (actor.kind === 'buyer' ? `customer:${actor.customerId}` : `store:${actor.id ?? 'unknown'}`);

async function companyOf(tx: Tx, customerId: string): Promise<string | null> {
  return (await tx.em.findOne(Buyer, { customerId }))?.b2bCustomerId ?? null;
}

async function lockQuote(tx: Tx, id: string): Promise<Quote> {
  const quote = await tx.em.findOne(Quote, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!quote) throw quoteNotFound();
  return quote;
}

/** The store's next quote number: one upsert on its counter row, locked until this transaction ends (no gaps, no repeats). */
async function nextSequence(tx: Tx): Promise<number> {
  const [row] = await tx.em.execute<Array<{ last_number: number }>>(
    `insert into b2b_quote_counter (tenant_id, last_number) values (?, 1)
     on conflict (tenant_id) do update set last_number = b2b_quote_counter.last_number + 1
     returning last_number`,
    [tx.tenantId],
  );
  return Number(row.last_number);
}
