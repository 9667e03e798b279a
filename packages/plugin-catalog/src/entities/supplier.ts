import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export interface SupplierAddress {
  street: string | null;
  city: string | null;
  country: string | null;
}

export const Supplier = defineEntity({
  name: 'Supplier',
  tableName: 'catalog_supplier',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    name: p.string(),
    code: p.string().nullable(),
    email: p.string().nullable(),
    phone: p.string().nullable(),
    address: p.json<SupplierAddress>().nullable(),
    metadata: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Supplier = InferEntity<typeof Supplier>;
