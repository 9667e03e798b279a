import type { TaxAssignment } from '../entities/assignment.js';
import type { TaxRegion } from '../entities/region.js';
import type { TaxSettingsView } from '../services/settings.js';

export function settingsOut(s: TaxSettingsView) {
  return {
    prices_include_tax: s.pricesIncludeTax,
    prices_include_tax_default: s.pricesIncludeTaxDefault,
    tax_shipping: s.taxShipping,
    shipping_tax_class: s.shippingTaxClass,
    origin_country: s.originCountry,
    origin_province: s.originProvince,
    updated_at: s.updatedAt?.toISOString() ?? null,
  };
}

export function regionOut(r: TaxRegion) {
  return {
    id: r.id,
    name: r.name,
    country_code: r.countryCode.trim(),
    province: r.province ?? null,
    rates: r.rates,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

export function assignmentOut(a: TaxAssignment) {
  return { id: a.id, target_type: a.targetType, tax_class: a.taxClass, created_at: a.createdAt.toISOString(), updated_at: a.updatedAt.toISOString() };
}
