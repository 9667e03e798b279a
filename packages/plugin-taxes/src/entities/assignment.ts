import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** The tax class a product (all its variants) or one variant is taxed at; without one, `standard`. */
export const TaxAssignment = defineEntity({
  name: 'TaxAssignment',
  tableName: 'taxes_assignment',
  properties: {
    /** The product or variant id. */
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    targetType: p.string().$type<'product' | 'variant'>(),
    taxClass: p.string(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type TaxAssignment = InferEntity<typeof TaxAssignment>;
