import type { InstalledTheme } from '../entities/installed-theme.js';
import type { ThemePurchase } from '../entities/purchase.js';
import type { CatalogThemeView } from '../services/catalog.js';
import type { LiveTheme } from '../services/live-theme.js';

export function catalogThemeOut(t: CatalogThemeView) {
  return {
    id: t.id,
    name: t.name,
    display_name: t.displayName,
    description: t.description,
    preview_url: t.previewUrl ?? null,
    thumbnail_url: t.thumbnailUrl ?? null,
    price: t.price,
    currency: t.currency,
    author: t.author,
    tags: t.tags,
    is_free: t.price === 0,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}

export function installedThemeOut(t: InstalledTheme) {
  return {
    id: t.id,
    theme_catalog_id: t.themeCatalogId,
    theme_name: t.themeName,
    display_name: t.displayName,
    is_active: t.isActive,
    installed_at: t.installedAt.toISOString(),
    activated_at: t.activatedAt?.toISOString() ?? null,
    published_at: t.publishedAt?.toISOString() ?? null,
  };
}

export function purchaseOut(p: ThemePurchase) {
  return { id: p.id, theme_catalog_id: p.themeCatalogId, price: p.price, currency: p.currency, purchased_at: p.purchasedAt.toISOString() };
}

export function liveThemeOut(t: LiveTheme) {
  return {
    id: t.id,
    theme_catalog_id: t.themeCatalogId,
    theme_name: t.themeName,
    display_name: t.displayName,
    settings: t.settings,
    published_at: t.publishedAt?.toISOString() ?? null,
  };
}
