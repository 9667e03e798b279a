import { LockMode } from '@mikro-orm/core';
import { Database, Tenant } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { TaxSetting } from '../entities/setting.js';
import type { TaxSettingsPatch } from '../schemas/taxes.js';

/** A store's tax settings as they apply. */
export interface TaxSettingsView {
  pricesIncludeTax: boolean;
  /** Whether `pricesIncludeTax` is the currency's default rather than the store's choice. */
  pricesIncludeTaxDefault: boolean;
  taxShipping: boolean;
  shippingTaxClass: string;
  originCountry: string | null;
  originProvince: string | null;
  updatedAt: Date | null;
}

/** Peruvian prices are shown with IGV; elsewhere (US sales tax, B2B) they are shown without. */
export const includesTaxByDefault = (currency: string) => currency.trim() === 'PEN';

export function settingsView(row: Pick<TaxSetting, 'pricesIncludeTax' | 'taxShipping' | 'shippingTaxClass' | 'originCountry' | 'originProvince'> & { updatedAt?: Date | null } | null, currency: string): TaxSettingsView {
  const explicit = row?.pricesIncludeTax ?? null;
  return {
    pricesIncludeTax: explicit ?? includesTaxByDefault(currency),
    pricesIncludeTaxDefault: explicit === null,
    taxShipping: row?.taxShipping ?? true,
    shippingTaxClass: row?.shippingTaxClass ?? 'standard',
    originCountry: row?.originCountry?.trim() ?? null,
    originProvince: row?.originProvince ?? null,
    updatedAt: row?.updatedAt ?? null,
  };
}

/** The store's tax settings: the only writer of `taxes_setting`. */
@injectable()
export class TaxSettings {
  constructor(@inject(Database) private readonly db: Database) {}

  async get(): Promise<TaxSettingsView> {
    return this.db.tenant(async ({ em, tenantId }) => {
      const row = await em.findOne(TaxSetting, { tenantId });
      const tenant = await em.findOneOrFail(Tenant, { id: tenantId });
      return settingsView(row, tenant.currency);
    });
  }

  /** Changes the fields given; the others keep their value. */
  async update(patch: TaxSettingsPatch): Promise<TaxSettingsView> {
    return this.db.tenant(async (tx) => {
      const tenant = await tx.em.findOneOrFail(Tenant, { id: tx.tenantId });
      const row =
        (await tx.em.findOne(TaxSetting, { tenantId: tx.tenantId }, { lockMode: LockMode.PESSIMISTIC_WRITE })) ??
        tx.em.create(TaxSetting, { tenantId: tx.tenantId, pricesIncludeTax: null, taxShipping: true, shippingTaxClass: 'standard', originCountry: null, originProvince: null, updatedAt: tx.now() });
      if (patch.prices_include_tax !== undefined) row.pricesIncludeTax = patch.prices_include_tax;
      if (patch.tax_shipping !== undefined) row.taxShipping = patch.tax_shipping;
      if (patch.shipping_tax_class !== undefined) row.shippingTaxClass = patch.shipping_tax_class;
      if (patch.origin_country !== undefined) row.originCountry = patch.origin_country;
      if (patch.origin_province !== undefined) row.originProvince = patch.origin_province;
      if (row.originCountry === null) row.originProvince = null;
      row.updatedAt = tx.now();
      return settingsView(row, tenant.currency);
    });
  }
}
