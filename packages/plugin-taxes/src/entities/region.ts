import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A country, or one province or state of it, with its rate per tax class in basis points. */
export const TaxRegion = defineEntity({
  name: 'TaxRegion',
  tableName: 'taxes_region',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    name: p.string(),
    countryCode: p.string(),
    /** Upper-case, as shipping addresses give it (e.g. `CA`, `LIMA`); null: the whole country. */
    province: p.string().nullable(),
    /** Class → basis points (1800 = 18 %). */
    rates: p.json<Record<string, number>>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type TaxRegion = InferEntity<typeof TaxRegion>;
