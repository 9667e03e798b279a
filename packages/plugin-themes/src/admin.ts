/**
 * What themes add to the admin dashboard (`@qhatu/admin`): the platform's theme store (install,
 * buy) and the store's installed themes (make one the live theme). Plain data, checked when the
 * store starts; the API checks each call (a paid theme installs only once purchased).
 */
export const themesAdmin = {
  pages: [
    {
      path: 'store',
      title: { en: 'Theme store', es: 'Tienda de temas' },
      permission: 'themes.read',
      view: {
        type: 'list' as const,
        source: '/api/v1/theme-store',
        columns: [
          { field: 'display_name', label: { en: 'Theme', es: 'Tema' } },
          { field: 'author', label: { en: 'Author', es: 'Autor' } },
          { field: 'price', label: { en: 'Price (cents)', es: 'Precio (céntimos)' } },
          { field: 'currency', label: { en: 'Currency', es: 'Moneda' } },
          { field: 'is_free', label: { en: 'Free', es: 'Gratis' } },
        ],
        actions: [
          { label: { en: 'Buy', es: 'Comprar' }, method: 'POST' as const, path: '/api/v1/theme-store/{id}/purchase', permission: 'themes.purchase' },
          { label: { en: 'Install', es: 'Instalar' }, method: 'POST' as const, path: '/api/v1/theme-store/{id}/install', permission: 'themes.write' },
        ],
      },
    },
    {
      path: 'installed',
      title: { en: 'Themes', es: 'Temas' },
      permission: 'themes.read',
      view: {
        type: 'list' as const,
        source: '/api/v1/theme-store/installed',
        row_id: 'theme_catalog_id',
        columns: [
          { field: 'display_name', label: { en: 'Theme', es: 'Tema' } },
          { field: 'is_active', label: { en: 'Live', es: 'Publicado' } },
          { field: 'installed_at', label: { en: 'Installed', es: 'Instalado' } },
          { field: 'activated_at', label: { en: 'Made live', es: 'Publicado el' } },
        ],
        actions: [{ label: { en: 'Make live', es: 'Publicar' }, method: 'POST' as const, path: '/api/v1/theme-store/{id}/activate', permission: 'themes.publish' }],
      },
    },
  ],
};
