import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { ThemeSettings } from './catalog-theme.js';

/** A saved snapshot of an installed theme's settings draft. */
export const ThemeVersion = defineEntity({
  name: 'ThemeVersion',
  tableName: 'themes_version',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    installedThemeId: p.uuid(),
    seq: p.bigint('number'),
    label: p.string(),
    snapshot: p.json<ThemeSettings>(),
    /** The theme's own settings as installed: never deleted by the retention of 50. */
    isBaseline: p.boolean(),
    createdBy: p.uuid().nullable(),
    createdAt: p.datetime(),
  },
});
export type ThemeVersion = InferEntity<typeof ThemeVersion>;
