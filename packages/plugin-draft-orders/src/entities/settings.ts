import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A store's own draft-order settings; a store without a row has the platform's defaults. */
export const DraftOrderSettings = defineEntity({
  name: 'DraftOrderSettings',
  tableName: 'draft_orders_settings',
  properties: {
    tenantId: p.uuid().primary(),
    /** The storefront page an invoice link opens (`{token}` in it, or `?token=` added). */
    invoiceUrl: p.string().nullable(),
    updatedAt: p.datetime(),
  },
});
export type DraftOrderSettings = InferEntity<typeof DraftOrderSettings>;
