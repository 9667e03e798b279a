import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A store's tax settings; absent until the store changes one (the defaults apply). */
export const TaxSetting = defineEntity({
  name: 'TaxSetting',
  tableName: 'taxes_setting',
  properties: {
    tenantId: p.uuid().primary(),
    /** Null: the default, true for PEN stores (prices shown with IGV), false otherwise. */
    pricesIncludeTax: p.boolean().nullable(),
    taxShipping: p.boolean(),
    shippingTaxClass: p.string(),
    /** Where the store sells from: the tax of a cart or checkout before the shopper gives an address. */
    originCountry: p.string().nullable(),
    originProvince: p.string().nullable(),
    updatedAt: p.datetime(),
  },
});
export type TaxSetting = InferEntity<typeof TaxSetting>;
