import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AppError, currencyNotListed, currencyOf, Database, paginate, storeMoney, TenantContext, type Page, type Tx } from '@qhatu/core';
import { Collection, Product } from '@qhatu/plugin-catalog';
import { inject, injectable } from 'tsyringe';
import { PriceList, PriceRule } from '../entities/price-list.js';
import { MAX_RULES, type PriceListCreate, type PriceListListQuery, type PriceListPatch, type RuleCreate } from '../schemas/price-list.js';

export const priceListNotFound = () => AppError.notFound('Price list', 'PRICE_LIST_NOT_FOUND');

/** A price list with its rules in order. */
export interface PriceListView {
  list: PriceList;
  rules: PriceRule[];
}

/** Price lists and their rules: the only writer of both. */
@injectable()
export class PriceLists {
  constructor(@inject(Database) private readonly db: Database) {}

  /** A list in any of the store's currencies (422 CURRENCY_NOT_LISTED otherwise); it prices carts and orders in that currency only. */
  async create(input: PriceListCreate): Promise<PriceListView> {
    return this.db.tenant(async (tx) => {
      const money = TenantContext.principal()?.money ?? (await storeMoney(tx));
      if (!currencyOf(money, input.currency)) throw currencyNotListed(input.currency, money, 'body.currency');
      const list = tx.em.create(PriceList, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        name: input.name,
        currency: input.currency,
        description: input.description ?? null,
        createdAt: tx.now(),
        updatedAt: tx.now(),
      });
      return { list, rules: [] };
    });
  }

  async get(id: string): Promise<PriceListView> {
    return this.db.tenant(async ({ em }) => {
      const list = await em.findOne(PriceList, { id });
      if (!list) throw priceListNotFound();
      return { list, rules: await em.find(PriceRule, { priceListId: id }, { orderBy: { position: 'asc' } }) };
    });
  }

  /** A page of lists with their rules: two statements. */
  async list(query: PriceListListQuery): Promise<{ views: PriceListView[]; page: Page<PriceList> }> {
    return this.db.tenant(async ({ em }) => {
      const page = await paginate(em, PriceList, {}, query);
      const rules = page.items.length ? await em.find(PriceRule, { priceListId: { $in: page.items.map((l) => l.id) } }, { orderBy: { priceListId: 'asc', position: 'asc' } }) : [];
      return { views: page.items.map((list) => ({ list, rules: rules.filter((r) => r.priceListId === list.id) })), page };
    });
  }

  async update(id: string, patch: PriceListPatch): Promise<PriceListView> {
    return this.db.tenant(async (tx) => {
      const list = await lockList(tx, id);
      let changed = false;
      if (patch.name !== undefined && patch.name !== list.name) [list.name, changed] = [patch.name, true];
      if (patch.description !== undefined && (patch.description ?? null) !== list.description) [list.description, changed] = [patch.description ?? null, true];
      if (changed) list.updatedAt = tx.now();
      return { list, rules: await tx.em.find(PriceRule, { priceListId: id }, { orderBy: { position: 'asc' } }) };
    });
  }

  /** Adds a rule at `position` (default: last); the rules after it move down one place. */
  async addRule(listId: string, input: RuleCreate): Promise<PriceRule> {
    return this.db.tenant(async (tx) => {
      const list = await lockList(tx, listId);
      if (input.category_id && !(await tx.em.count(Collection, { id: input.category_id }))) {
        throw AppError.unprocessable('CATEGORY_NOT_FOUND', `Collection ${input.category_id} does not exist`, [{ path: 'body.category_id', message: 'is not a collection of this store' }]);
      }
      if (input.product_id && !(await tx.em.count(Product, { id: input.product_id }))) {
        throw AppError.unprocessable('PRODUCT_NOT_FOUND', `Product ${input.product_id} does not exist`, [{ path: 'body.product_id', message: 'is not a product of this store' }]);
      }
      // Positions may have gaps (a deleted product or collection takes its rules): the order is what counts.
      const [{ n, last }] = await tx.em.execute<Array<{ n: number; last: number }>>(
        'select count(*)::int as n, coalesce(max(position), 0) as last from b2b_price_rule where tenant_id = ? and price_list_id = ?',
        [tx.tenantId, listId],
      );
      if (n >= MAX_RULES) throw AppError.unprocessable('TOO_MANY_RULES', `A price list holds at most ${MAX_RULES} rules`);
      const position = Math.min(input.position ?? last + 1, last + 1);
      if (position <= last) {
        await tx.em.execute('update b2b_price_rule set position = position + 1 where tenant_id = ? and price_list_id = ? and position >= ?', [tx.tenantId, listId, position]);
      }
      const rule = tx.em.create(PriceRule, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        priceListId: listId,
        position,
        type: input.type,
        value: input.value,
        appliesTo: input.applies_to,
        categoryId: input.category_id ?? null,
        productId: input.product_id ?? null,
        createdAt: tx.now(),
      });
      list.updatedAt = tx.now();
      return rule;
    });
  }

  /** Deletes a rule; the rules after it move up one place. */
  async deleteRule(listId: string, ruleId: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const list = await lockList(tx, listId);
      const rule = await tx.em.findOne(PriceRule, { id: ruleId, priceListId: listId });
      if (!rule) throw AppError.notFound('Price rule', 'PRICE_RULE_NOT_FOUND');
      await tx.em.nativeDelete(PriceRule, { id: ruleId });
      await tx.em.execute('update b2b_price_rule set position = position - 1 where tenant_id = ? and price_list_id = ? and position > ?', [tx.tenantId, listId, rule.position]);
      list.updatedAt = tx.now();
    });
  }
}

async function lockList(tx: Tx, id: string): Promise<PriceList> {
  const list = await tx.em.findOne(PriceList, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!list) throw priceListNotFound();
  return list;
}
