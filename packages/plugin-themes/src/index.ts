import { CONFIG, definePlugin, type QhatuConfig, type QhatuPlugin } from '@qhatu/core';
import { themesAdmin } from './admin.js';
import { CatalogTheme } from './entities/catalog-theme.js';
import { InstalledTheme } from './entities/installed-theme.js';
import { ThemePurchase } from './entities/purchase.js';
import { ThemeStoreSetting } from './entities/store-setting.js';
import { ThemeVersion } from './entities/version.js';
import { themesMigration } from './migrations/0001_themes.js';
import { markupCheckedMigration } from './migrations/0002_markup_checked.js';
import { adminThemeRoutes } from './routes/admin-themes.js';
import { refuseReservedKeysByName } from './routes/json-body.js';
import { themeStoreRoutes } from './routes/theme-store.js';
import { ThemeCatalog, type CatalogThemeSeed } from './services/catalog.js';
import { THEME_EVENTS } from './services/events.js';
import { LiveThemes } from './services/live-theme.js';
import { SettingsCleanup } from './services/settings-cleanup.js';
import { readSettings, THEMES_SETTINGS } from './services/settings.js';
import { StoreThemes } from './services/store-themes.js';
import { ThemeEditor } from './services/theme-editor.js';
import { StoreTimeZone } from './services/time-zone.js';

export { CatalogTheme, type ThemeSettings, type ThemeSection } from './entities/catalog-theme.js';
export { InstalledTheme } from './entities/installed-theme.js';
export { ThemePurchase } from './entities/purchase.js';
export { ThemeVersion } from './entities/version.js';
export { ThemeCatalog, type CatalogThemeSeed } from './services/catalog.js';
export { StoreThemes, BASELINE_LABEL } from './services/store-themes.js';
export { ThemeEditor, PUBLISHED_LABEL, VERSIONS_KEPT } from './services/theme-editor.js';
export { LiveThemes, type LiveTheme } from './services/live-theme.js';
export { StoreTimeZone, versionTime } from './services/time-zone.js';
export { THEMES_SETTINGS, type ThemesSettings } from './services/settings.js';
export { THEME_EVENTS } from './services/events.js';
export { THEME_HTML_ALLOW_LIST, kindOf, sanitizeThemeHtml, type SettingKind } from './services/markup.js';
// Core's, as before (theme texts are plain text the way a post's are).
export { plainText } from '@qhatu/core';
export { STARTER_THEMES } from './starter-themes.js';

export interface ThemesOptions {
  /** Catalog themes added at start when missing (by id or name); themes already there are left alone. */
  seed?: readonly CatalogThemeSeed[];
}

/** Themes: the platform's theme store, a store's purchases and installs, its active theme and that theme's settings. */
export function themesPlugin(options: ThemesOptions = {}): QhatuPlugin {
  return definePlugin({
    name: 'themes',
    // Its pages and widgets in the admin dashboard.
    admin: themesAdmin,
    entities: [CatalogTheme, ThemePurchase, InstalledTheme, ThemeVersion, ThemeStoreSetting],
    migrations: [themesMigration, markupCheckedMigration],
    events: [...THEME_EVENTS],
    permissions: [
      { name: 'themes.read', description: 'See the theme store, the installed themes, the settings draft and its versions' },
      { name: 'themes.write', description: 'Install themes, edit the settings draft, save and restore versions, set the editor\'s time zone' },
      { name: 'themes.publish', description: 'Activate a theme and publish the settings draft to the storefront' },
      { name: 'themes.purchase', description: 'Purchase paid themes for the store' },
    ],
    register(container) {
      container.register(THEMES_SETTINGS, { useFactory: (c) => readSettings(c.resolve<QhatuConfig>(CONFIG)) });
      container.registerSingleton(ThemeCatalog);
      container.registerSingleton(StoreThemes);
      container.registerSingleton(StoreTimeZone);
      container.registerSingleton(ThemeEditor);
      container.registerSingleton(LiveThemes);
      container.registerSingleton(SettingsCleanup);
    },
    async onReady({ container }) {
      // What was stored before storefront markup was checked is cleaned before anything is served.
      await container.resolve(SettingsCleanup).run();
      await container.resolve(ThemeCatalog).seed(options.seed ?? []);
    },
    // The specification puts the settings under /admin and the store under /api/v1: full paths below.
    prefix: '',
    routes: async (app, { container }) => {
      refuseReservedKeysByName(app);
      await themeStoreRoutes(app, container);
      await adminThemeRoutes(app, container);
    },
  });
}

export default themesPlugin();
