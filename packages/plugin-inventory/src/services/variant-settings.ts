import { randomUUID } from 'node:crypto';
import { AppError, Database, jsonColumn, paginate, uuidArray, type Page, type PageRequest, type Tx, type TxReader } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { VariantSetting } from '../entities/variant-setting.js';

/** How a sale treats one variant's stock (decision 0054). */
export interface StockTerms {
  variantId: string;
  /** The store keeps its stock: sold only with a reservation (or as a backorder). */
  tracked: boolean;
  allowBackorder: boolean;
}

/** A variant's setting as answered: the store's row (null: never set), and whether it has stock records. */
export interface VariantSettingView {
  variantId: string;
  productId: string;
  sku: string | null;
  setting: VariantSetting | null;
  stocked: boolean;
}

export interface VariantSettingInput {
  tracked?: boolean | null;
  allow_backorder?: boolean;
}

export interface VariantSettingFilter {
  tracked?: boolean;
  allow_backorder?: boolean;
}

export const variantNotFound = () => AppError.notFound('Variant', 'VARIANT_NOT_FOUND');

/** Whether the store keeps each variant's stock, and whether it sells it short. */
@injectable()
export class VariantSettings {
  constructor(@inject(Database) private readonly db: Database) {}

  /** Any variant of the store: its own setting, or the defaults (404 VARIANT_NOT_FOUND). */
  async get(variantId: string): Promise<VariantSettingView> {
    return this.db.tenant(async (tx) => {
      const [view] = await describe(tx, [variantId], await tx.em.find(VariantSetting, { variantId }));
      if (!view) throw variantNotFound();
      return view;
    });
  }

  /** Replaces the variant's setting: absent `tracked` is null (automatic), absent `allow_backorder` false. */
  async replace(variantId: string, input: VariantSettingInput): Promise<VariantSettingView> {
    return this.db.tenant(async (tx) => {
      if ((await describe(tx, [variantId], [])).length === 0) throw variantNotFound();
      // One statement whoever comes first: two PUTs at once both end in one row.
      const [row] = await tx.em.execute<Array<Record<string, unknown>>>(
        `insert into inventory_variant_setting as s (tenant_id, id, variant_id, tracked, allow_backorder, created_at, updated_at)
         values (?, ?, ?, ?, ?, ?, ?)
         on conflict (tenant_id, variant_id) do update set tracked = excluded.tracked, allow_backorder = excluded.allow_backorder, updated_at = excluded.updated_at
         returning *`,
        [tx.tenantId, randomUUID(), variantId, input.tracked ?? null, input.allow_backorder ?? false, tx.now(), tx.now()],
      );
      return (await describe(tx, [variantId], [tx.em.map(VariantSetting, row)]))[0];
    });
  }

  /** The variants the store gave a setting, page by page. */
  async list(page: PageRequest, filter: VariantSettingFilter): Promise<{ views: VariantSettingView[]; page: Page<VariantSetting> }> {
    return this.db.tenant(async (tx) => {
      const where: Record<string, unknown> = {};
      if (filter.tracked !== undefined) where.tracked = filter.tracked;
      if (filter.allow_backorder !== undefined) where.allowBackorder = filter.allow_backorder;
      const result = await paginate(tx.em, VariantSetting, where, page);
      const views = await describe(tx, result.items.map((s) => s.variantId), result.items);
      const byVariant = new Map(views.map((v) => [v.variantId, v]));
      return { views: result.items.map((s) => byVariant.get(s.variantId)).filter((v) => v !== undefined), page: result };
    });
  }

  /**
   * How each of `variantIds` is sold, in one statement inside the caller's transaction: tracked as
   * the store said, else once it has a stock record. A variant unknown here is untracked.
   */
  async terms(tx: TxReader, variantIds: string[]): Promise<Map<string, StockTerms>> {
    const ids = [...new Set(variantIds)];
    if (ids.length === 0) return new Map();
    const [row] = await tx.query<{ terms: unknown }>(`select ${stockTermsSql('?', 'select unnest(?::uuid[])')} as terms`, [tx.tenantId, uuidArray(ids)]);
    return stockTermsFrom(row.terms);
  }
}

/**
 * `terms` as one JSON column of a caller's statement (the checkout's locking read), read in the
 * round trip the caller makes anyway: `tenantSql` names the tenant (it appears once, first),
 * `variantIdsSql` selects the variants' ids. `stockTermsFrom` reads the column.
 */
export function stockTermsSql(tenantSql: string, variantIdsSql: string): string {
  return `(select coalesce(json_agg(json_build_object('variant_id', i.id, 'tracked', s.tracked, 'allow_backorder', s.allow_backorder,
              'stocked', exists (select 1 from inventory_stock st where st.tenant_id = x.tenant_id and st.variant_id = i.id))), '[]'::json)
         from (select ${tenantSql}::uuid as tenant_id) x
         cross join (select distinct id from (${variantIdsSql}) as named(id)) as i
         left join inventory_variant_setting s on s.tenant_id = x.tenant_id and s.variant_id = i.id)`;
}

/** The terms of `stockTermsSql`'s column, by variant. */
export function stockTermsFrom(column: unknown): Map<string, StockTerms> {
  const rows = jsonColumn<Array<{ variant_id: string; tracked: boolean | null; allow_backorder: boolean | null; stocked: boolean }>>(column);
  return new Map(rows.map((r) => [r.variant_id, { variantId: r.variant_id, tracked: r.tracked ?? r.stocked, allowBackorder: r.allow_backorder ?? false }]));
}

/** The variants of the store among `ids` with their product, SKU and whether they have stock records; one statement. */
async function describe(tx: Tx, ids: string[], settings: VariantSetting[]): Promise<VariantSettingView[]> {
  if (ids.length === 0) return [];
  const rows = await tx.em.execute<Array<{ id: string; product_id: string; sku: string | null; stocked: boolean }>>(
    `select v.id, v.product_id, v.sku,
            exists (select 1 from inventory_stock st where st.tenant_id = v.tenant_id and st.variant_id = v.id) as stocked
       from catalog_variant v where v.tenant_id = ? and v.id = any(?::uuid[])`,
    [tx.tenantId, uuidArray(ids)],
  );
  const own = new Map(settings.map((s) => [s.variantId, s]));
  return rows.map((r) => ({ variantId: r.id, productId: r.product_id, sku: r.sku, setting: own.get(r.id) ?? null, stocked: r.stocked }));
}
