import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '@qhatu/core';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AdminManifest } from './declarations.js';

/** Where `vite build` puts the dashboard: `dist/ui` of this package (from `src/` and from `dist/` alike). */
export const BUILT_UI = fileURLToPath(new URL('../dist/ui/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

const NOT_BUILT =
  'The admin dashboard is not built: run `pnpm --filter @qhatu/admin build` (packing the packages builds it too), then restart the store';

const exists = (file: string) => stat(file).then((s) => s.isFile(), () => false);

/**
 * The dashboard's files: hashed assets kept a year (`immutable`), the page itself revalidated on
 * every load so a new build is picked up; any other address under `/admin/ui` is the page (the
 * app routes in the browser). Without a build, a 503 that says how to make one.
 */
export function adminUiRoutes(app: FastifyInstance, root: string, manifest: AdminManifest, connectOrigins: readonly string[] = []): void {
  // The page calls its own origin, and the origins signed uploads go to (the store's public address, a bucket).
  const connect = ["'self'", ...new Set(connectOrigins)].join(' ');
  const base = normalize(root.endsWith(sep) ? root : root + sep);
  const index = join(base, 'index.html');
  const security = (reply: FastifyReply) =>
    reply
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .header('x-frame-options', 'DENY');

  const page = async (reply: FastifyReply) => {
    if (!(await exists(index))) throw new AppError(503, 'SERVICE_UNAVAILABLE', NOT_BUILT);
    return security(reply)
      .type(TYPES['.html'])
      .header('cache-control', 'no-cache')
      .header('content-security-policy', `default-src 'self'; img-src 'self' data: https:; style-src 'self'; script-src 'self'; connect-src ${connect}; frame-ancestors 'none'; base-uri 'self'; form-action 'self'`)
      .send(await readFile(index));
  };

  const config = { auth: 'public' as const };
  app.get('/admin/ui', { config, schema: { hide: true } }, async (_request, reply) => page(reply));

  const body = JSON.stringify(manifest);
  app.get('/admin/ui/manifest.json', { config, schema: { hide: true } }, async (_request, reply) =>
    security(reply).type(TYPES['.json']).header('cache-control', 'no-cache').send(body),
  );

  // Staff invitation and password-reset e-mails link to `<public URL>/staff/password` unless
  // QHATU_STAFF_PASSWORD_URL says otherwise: the dashboard's page that sets the password.
  app.get('/staff/password', { config, schema: { hide: true } }, async (request, reply) => {
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
    return reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(`/admin/ui/password${query}`, 302);
  });

  app.get<{ Params: { '*': string } }>('/admin/ui/*', { config, schema: { hide: true } }, async (request, reply) => {
    const wanted = request.params['*'];
    const file = normalize(join(base, wanted));
    if (!file.startsWith(base)) return reply.callNotFound();
    if (wanted.startsWith('assets/') || extname(wanted)) {
      if (!(await exists(file))) {
        if (!(await exists(index))) throw new AppError(503, 'SERVICE_UNAVAILABLE', NOT_BUILT);
        return reply.callNotFound();
      }
      const type = TYPES[extname(file)] ?? 'application/octet-stream';
      const cache = wanted.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'public, max-age=300';
      return security(reply).type(type).header('cache-control', cache).send(await readFile(file));
    }
    return page(reply);
  });
}
