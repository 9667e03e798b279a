import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { ThemeSettings } from './catalog-theme.js';

/** A theme installed in a store: at most one is active; the draft is edited, `published` is live. */
export const InstalledTheme = defineEntity({
  name: 'InstalledTheme',
  tableName: 'themes_installed',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    themeCatalogId: p.uuid(),
    themeName: p.string(),
    displayName: p.string(),
    isActive: p.boolean(),
    draft: p.json<ThemeSettings>(),
    published: p.json<ThemeSettings>(),
    publishedAt: p.datetime().nullable(),
    draftUpdatedAt: p.datetime(),
    /** The last version number given out; versions are numbered per installed theme. */
    versionSeq: p.bigint('number'),
    installedAt: p.datetime(),
    activatedAt: p.datetime().nullable(),
  },
});
export type InstalledTheme = InferEntity<typeof InstalledTheme>;
