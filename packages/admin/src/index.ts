import { CONFIG, definePlugin, PLUGINS, type QhatuConfig, type QhatuPlugin } from '@qhatu/core';
import { adminManifest } from './declarations.js';
import { adminUiRoutes, BUILT_UI } from './ui-routes.js';

export {
  ADMIN_ZONES,
  AdminDeclaration,
  adminManifest,
  type AdminDeclarationInput,
  type AdminManifest,
  type AdminZone,
} from './declarations.js';
export { BUILT_UI } from './ui-routes.js';

export interface AdminUiOptions {
  /** The folder of a built dashboard; this package's `dist/ui` by default. */
  root?: string;
  /**
   * Origins besides the store's own the dashboard may send requests to: the object storage that
   * signed uploads go to (an S3 bucket's `https://<bucket>.s3.<region>.amazonaws.com`). The store's
   * public address (`QHATU_PUBLIC_URL`) is always allowed.
   */
  uploadOrigins?: string[];
}

/**
 * The admin dashboard, served at `/admin/ui`: the built single-page app and the manifest of what
 * the installed plugins add to it (their `admin` declarations, checked when the store starts).
 */
export function adminUiPlugin(options: AdminUiOptions = {}): QhatuPlugin {
  return definePlugin({
    name: 'admin',
    prefix: '',
    async routes(app, { container }) {
      const config = container.resolve<QhatuConfig>(CONFIG);
      const origins = [config.publicUrl, ...(options.uploadOrigins ?? [])].map((url) => new URL(url).origin);
      adminUiRoutes(app, options.root ?? BUILT_UI, adminManifest(container.resolve<QhatuPlugin[]>(PLUGINS)), origins);
    },
  });
}
