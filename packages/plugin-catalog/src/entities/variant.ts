import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { CustomFieldValues } from '@qhatu/core';

export const Variant = defineEntity({
  name: 'Variant',
  tableName: 'catalog_variant',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    productId: p.uuid(),
    title: p.string(),
    sku: p.string().nullable(),
    /** Minor units of `currency`. */
    price: p.integer(),
    compareAtPrice: p.integer().nullable(),
    currency: p.string(),
    weightGrams: p.integer().nullable(),
    requiresShipping: p.boolean(),
    taxable: p.boolean(),
    inventoryQuantity: p.integer(),
    position: p.integer(),
    /** Declared by plugins and the project (core's `CustomFields`). */
    customFields: p.json<CustomFieldValues>().onCreate(() => ({})),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Variant = InferEntity<typeof Variant>;
