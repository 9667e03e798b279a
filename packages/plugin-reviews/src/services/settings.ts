import { AppError, Database, type SqlReader, type Tx } from '@qhatu/core';
import { Products } from '@qhatu/plugin-catalog';
import { inject, injectable } from 'tsyringe';

interface BooleanSetting {
  type: 'boolean';
  default: boolean;
  label: string;
  description: string;
}
interface RatingSetting {
  type: 'rating';
  default: number;
  label: string;
  description: string;
}

/** Every review setting: its type, default and meaning. One list feeds validation, the API and the panel. */
export const REVIEW_SETTINGS = {
  enabled: { type: 'boolean', default: true, label: 'Accept reviews', description: 'Customers may write reviews (false: 422 REVIEWS_DISABLED)' },
  visible: { type: 'boolean', default: true, label: 'Show reviews', description: 'The storefront sees approved reviews and the rating (false: an empty list and a zero rating; admins still see everything)' },
  auto_approve: { type: 'boolean', default: false, label: 'Approve automatically', description: 'A new review is approved at once when its rating is at least auto_approve_min_rating' },
  auto_approve_min_rating: { type: 'rating', default: 1, label: 'Lowest rating approved automatically', description: 'With auto_approve: reviews rated lower wait in pending (1 to 5)' },
  verified_purchases_only: { type: 'boolean', default: false, label: 'Verified purchases only', description: 'A review needs an order of the customer that holds the product (422 VERIFIED_PURCHASE_REQUIRED)' },
} as const satisfies Record<string, BooleanSetting | RatingSetting>;

export type ReviewSettingField = keyof typeof REVIEW_SETTINGS;
export const REVIEW_SETTING_FIELDS = Object.keys(REVIEW_SETTINGS) as [ReviewSettingField, ...ReviewSettingField[]];
export type ReviewSettings = { -readonly [K in ReviewSettingField]: (typeof REVIEW_SETTINGS)[K]['default'] extends boolean ? boolean : number };
export type ReviewSettingValue = boolean | number;

/** A product's settings: what applies, and which of them the product sets itself. */
export interface ProductReviewSettings {
  productId: string;
  productTitle: string;
  settings: ReviewSettings;
  overrides: Partial<ReviewSettings>;
}

export const DEFAULT_REVIEW_SETTINGS = Object.fromEntries(REVIEW_SETTING_FIELDS.map((f) => [f, REVIEW_SETTINGS[f].default])) as ReviewSettings;

const isField = (field: string): field is ReviewSettingField => Object.hasOwn(REVIEW_SETTINGS, field);

/** The field named by a request, or 400 listing the fields there are (the bad name is not repeated back). */
export function settingField(field: string, path: string): ReviewSettingField {
  if (!isField(field)) {
    throw AppError.validation('There is no review setting of this name', [{ path, message: `must be one of ${REVIEW_SETTING_FIELDS.join(', ')}` }]);
  }
  return field;
}

/** A setting's value sent as a string (`"true"`, `"4"`) to its type, or 400 saying what it takes. */
export function parseSettingValue(field: ReviewSettingField, raw: string, path = 'body.value'): ReviewSettingValue {
  const definition = REVIEW_SETTINGS[field];
  const value = raw.trim();
  if (definition.type === 'boolean') {
    if (value === 'true' || value === 'false') return value === 'true';
    throw AppError.validation(`The setting ${field} takes true or false`, [{ path, message: 'must be "true" or "false"' }]);
  }
  if (/^[1-5]$/.test(value)) return Number(value);
  throw AppError.validation(`The setting ${field} takes a rating from 1 to 5`, [{ path, message: 'must be a whole number from 1 to 5' }]);
}

/** Stored values that no longer read as their type (a hand edit) fall back to the default. */
function read(rows: Array<{ field: string; value: unknown }>): Partial<ReviewSettings> {
  const out: Record<string, ReviewSettingValue> = {};
  for (const { field, value } of rows) {
    if (!isField(field)) continue;
    const type = REVIEW_SETTINGS[field].type;
    if ((type === 'boolean' && typeof value === 'boolean') || (type === 'rating' && Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 5)) {
      out[field] = value as ReviewSettingValue;
    }
  }
  return out as Partial<ReviewSettings>;
}

/** The store's settings and a product's overrides, in one statement. */
export async function readSettings(sql: SqlReader, productId?: string): Promise<{ store: Partial<ReviewSettings>; product: Partial<ReviewSettings> }> {
  const rows = await sql.query<{ field: string; value: unknown; scope: 'store' | 'product' }>(
    `select field, value, 'store' as scope from reviews_setting where tenant_id = ?
     union all
     select field, value, 'product' as scope from reviews_product_setting where tenant_id = ? and product_id = ?`,
    [sql.tenantId, sql.tenantId, productId ?? '00000000-0000-0000-0000-000000000000'],
  );
  return { store: read(rows.filter((r) => r.scope === 'store')), product: read(rows.filter((r) => r.scope === 'product')) };
}

export function effective(store: Partial<ReviewSettings>, product: Partial<ReviewSettings> = {}): ReviewSettings {
  return { ...DEFAULT_REVIEW_SETTINGS, ...store, ...product };
}

/** The store's review settings and each product's overrides. */
@injectable()
export class ReviewSettingsService {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Products) private readonly products: Products,
  ) {}

  async store(): Promise<ReviewSettings> {
    return this.db.read(async (sql) => effective((await readSettings(sql)).store));
  }

  async setStore(field: string, raw: string): Promise<ReviewSettings> {
    const name = settingField(field, 'body.field');
    const value = parseSettingValue(name, raw);
    return this.db.tenant(async (tx) => {
      await tx.em.execute(
        `insert into reviews_setting (tenant_id, field, value, updated_at) values (?, ?, ?::jsonb, ?)
         on conflict (tenant_id, field) do update set value = excluded.value, updated_at = excluded.updated_at`,
        [tx.tenantId, name, JSON.stringify(value), tx.now()],
      );
      return effective((await readSettings(sqlOf(tx))).store);
    });
  }

  /** A product's settings; 404 PRODUCT_NOT_FOUND when the store has no such product. */
  async product(productId: string): Promise<ProductReviewSettings> {
    return this.db.tenant((tx) => this.productIn(tx, productId));
  }

  async setProduct(productId: string, field: string, raw: string): Promise<ProductReviewSettings> {
    const name = settingField(field, 'body.field');
    const value = parseSettingValue(name, raw);
    return this.db.tenant(async (tx) => {
      await this.products.get(productId);
      await tx.em.execute(
        `insert into reviews_product_setting (tenant_id, product_id, field, value, updated_at) values (?, ?, ?, ?::jsonb, ?)
         on conflict (tenant_id, product_id, field) do update set value = excluded.value, updated_at = excluded.updated_at`,
        [tx.tenantId, productId, name, JSON.stringify(value), tx.now()],
      );
      return this.productIn(tx, productId);
    });
  }

  /** Removes a product's override of `field`: the store's setting applies again. */
  async removeProductOverride(productId: string, field: string): Promise<void> {
    const name = settingField(field, 'params.field');
    await this.db.tenant(async (tx) => {
      await this.products.get(productId);
      const removed = await tx.em.execute<Array<{ field: string }>>(
        `delete from reviews_product_setting where tenant_id = ? and product_id = ? and field = ? returning field`,
        [tx.tenantId, productId, name],
      );
      if (removed.length === 0) throw AppError.notFound(`An override of ${name} for this product`, 'REVIEW_SETTING_OVERRIDE_NOT_FOUND');
    });
  }

  private async productIn(tx: Tx, productId: string): Promise<ProductReviewSettings> {
    const { product } = await this.products.get(productId);
    const { store, product: overrides } = await readSettings(sqlOf(tx), productId);
    return { productId, productTitle: product.title, settings: effective(store, overrides), overrides };
  }
}

/** The open transaction as a reader. */
export function sqlOf(tx: Tx): SqlReader {
  return { tenantId: tx.tenantId, query: (sql, params = []) => tx.em.execute(sql, params) };
}
