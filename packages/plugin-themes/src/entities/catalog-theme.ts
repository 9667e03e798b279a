import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A theme's settings: the sections in the order the storefront shows them, and each one's settings. */
export interface ThemeSettings {
  section_order: string[];
  sections: Record<string, ThemeSection>;
}

export type ThemeSection = {
  type: string;
  disabled?: boolean;
  settings: Record<string, unknown>;
  blocks?: Record<string, { type: string; disabled?: boolean; settings: Record<string, unknown> }>;
  block_order?: string[];
};

/** A theme of the platform's store: no tenant, every store reads it, only the platform writes it. */
export const CatalogTheme = defineEntity({
  name: 'CatalogTheme',
  tableName: 'themes_catalog',
  properties: {
    id: p.uuid().primary(),
    name: p.string(),
    displayName: p.string(),
    description: p.text(),
    previewUrl: p.string().nullable(),
    thumbnailUrl: p.string().nullable(),
    /** Minor units of `currency`; 0 is a free theme. */
    price: p.integer(),
    currency: p.string(),
    author: p.string(),
    tags: p.json<string[]>(),
    /** The theme's own settings: what an install starts from, and its baseline version. */
    baseline: p.json<ThemeSettings>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type CatalogTheme = InferEntity<typeof CatalogTheme>;
