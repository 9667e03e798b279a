import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';

/**
 * GraphiQL (schema explorer, completion, history), served with its own assets: no CDN. The token
 * and tenant go in GraphiQL's headers editor and stay in the page unless the user turns on
 * "Persist headers" in its settings.
 */
export const playgroundHtml = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Qhatu GraphQL</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/graphql/assets/graphiql.min.css">
<style>html,body,#graphiql{height:100%;margin:0}</style>
</head><body><div id="graphiql">Loading the Qhatu GraphQL playground…</div>
<script src="/graphql/assets/react.production.min.js"></script>
<script src="/graphql/assets/react-dom.production.min.js"></script>
<script src="/graphql/assets/graphiql.min.js"></script>
<script src="/graphql/assets/playground.js"></script>
</body></html>`;

const playgroundScript = `(async () => {
  // GraphiQL's history keeps each query's headers (the token): only when the user asked to persist them.
  const keepHeaders = () => localStorage.getItem('graphiql:shouldPersistHeaders') === 'true';
  const storage = {
    getItem: (key) => localStorage.getItem(key),
    removeItem: (key) => localStorage.removeItem(key),
    clear: () => localStorage.clear(),
    get length() { return localStorage.length; },
    setItem(key, value) {
      if (!keepHeaders() && /:(queries|favorites)$/.test(key)) {
        try {
          const saved = JSON.parse(value);
          for (const entry of saved.queries || []) delete entry.headers;
          value = JSON.stringify(saved);
        } catch (error) { return; }
      }
      localStorage.setItem(key, value);
    },
  };
  const schema = await fetch('/graphql/schema.json').then((res) => res.json());
  const fetcher = GraphiQL.createFetcher({ url: '/graphql' });
  const headers = JSON.stringify({ authorization: 'Bearer <token>', 'x-tenant-id': '<store id>' }, null, 2);
  const query = '# Put your token and store id in the Headers tab below, then run.\\n{\\n  products(limit: 10) {\\n    edges { node { id title handle variants { id title price } } }\\n    pageInfo { hasNextPage endCursor }\\n  }\\n}\\n';
  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, { fetcher, schema, storage, defaultQuery: query, defaultHeaders: headers, defaultEditorToolsVisibility: 'headers', shouldPersistHeaders: false, isHeadersEditorEnabled: true }),
  );
})();
`;

const require = createRequire(import.meta.url);
// mercurius builds the schema with graphql's CommonJS build; introspect it with the same one.
const { introspectionFromSchema } = require('graphql') as typeof import('graphql');
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

/** Where each asset comes from: the installed packages, read once on first use. */
const ASSETS: Record<string, { type: string; load: () => Buffer | string }> = {
  'graphiql.min.css': { type: 'text/css', load: () => readFileSync(join(packageDir('graphiql'), 'graphiql.min.css')) },
  'graphiql.min.js': { type: 'text/javascript', load: () => readFileSync(join(packageDir('graphiql'), 'graphiql.min.js')) },
  'react.production.min.js': { type: 'text/javascript', load: () => readFileSync(join(packageDir('react'), 'umd/react.production.min.js')) },
  'react-dom.production.min.js': { type: 'text/javascript', load: () => readFileSync(join(packageDir('react-dom'), 'umd/react-dom.production.min.js')) },
  'playground.js': { type: 'text/javascript', load: () => playgroundScript },
};

/** The playground's files and the schema it explores (the same for every store: plugins make it). */
export function playgroundRoutes(app: FastifyInstance, schema: () => GraphQLSchema): void {
  const loaded = new Map<string, Buffer | string>();
  app.get<{ Params: { file: string } }>('/graphql/assets/:file', { schema: { hide: true } }, async (request, reply) => {
    const asset = Object.hasOwn(ASSETS, request.params.file) ? ASSETS[request.params.file] : undefined;
    if (!asset) return reply.callNotFound();
    if (!loaded.has(request.params.file)) loaded.set(request.params.file, asset.load());
    return reply.type(`${asset.type}; charset=utf-8`).header('cache-control', 'public, max-age=86400').send(loaded.get(request.params.file));
  });
  let introspection: string | undefined;
  app.get('/graphql/schema.json', { schema: { hide: true } }, async (_request, reply) => {
    introspection ??= JSON.stringify({ __schema: introspectionFromSchema(schema()).__schema });
    return reply.type('application/json; charset=utf-8').header('cache-control', 'public, max-age=300').send(introspection);
  });
}
