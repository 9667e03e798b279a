export const THEME_PURCHASED = 'themes.theme.purchased';
export const THEME_INSTALLED = 'themes.theme.installed';
export const THEME_ACTIVATED = 'themes.theme.activated';
export const SETTINGS_PUBLISHED = 'themes.settings.published';
export const VERSION_RESTORED = 'themes.version.restored';

export const THEME_EVENTS = [THEME_PURCHASED, THEME_INSTALLED, THEME_ACTIVATED, SETTINGS_PUBLISHED, VERSION_RESTORED] as const;
