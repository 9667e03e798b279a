import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** The theme editor's settings of one store. */
export const ThemeStoreSetting = defineEntity({
  name: 'ThemeStoreSetting',
  tableName: 'themes_store_setting',
  properties: {
    tenantId: p.uuid().primary(),
    /** IANA time zone that version times are shown in. */
    timeZone: p.string(),
    updatedAt: p.datetime(),
  },
});
export type ThemeStoreSetting = InferEntity<typeof ThemeStoreSetting>;
