import type { PluginNames } from '../names.js';

export function routes(n: PluginNames): string {
  return `import { ADMIN, dataOf, errorResponses, IdParams, listOf, STOREFRONT, type QhatuPlugin } from '@qhatu/core';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ${n.entity} } from '../entities/${n.file}.js';
import { ${n.entity}Input, ${n.entity}List, ${n.entity}Out } from '../schemas/${n.file}.js';
import { ${n.service} } from '../services/${n.file}s.js';

const itemOut = (item: ${n.entity}) => ({
  id: item.id,
  title: item.title,
  description: item.description ?? null,
  created_at: item.createdAt.toISOString(),
  updated_at: item.updatedAt.toISOString(),
});

/** /api/v1/${n.name}/items: the admin (or a staff member whose role grants ${n.name}.write) adds items, the storefront reads them. Handlers parse, call one service method, shape the answer. */
export const ${n.camel}ItemRoutes: NonNullable<QhatuPlugin['routes']> = async (app, { container }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const items = container.resolve(${n.service});
  const tags = ['${n.pascal}'];

  r.post('/${n.name}/items', {
    config: { auth: ADMIN, permission: '${n.name}.write' },
    schema: { tags, summary: 'Add an item', body: ${n.entity}Input, response: { 201: dataOf(${n.entity}Out), ...errorResponses(400, 401, 403) } },
  }, async (req, reply) => reply.code(201).send({ data: itemOut(await items.create(req.body)) }));

  r.get('/${n.name}/items', {
    config: { auth: STOREFRONT },
    schema: { tags, summary: 'List items', querystring: ${n.entity}List, response: { 200: listOf(${n.entity}Out), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await items.list(req.query, req.query.q);
    return { data: page.items.map(itemOut), meta: { pagination: page.pagination } };
  });

  r.get('/${n.name}/items/:id', {
    config: { auth: STOREFRONT },
    schema: { tags, summary: 'Read an item', params: IdParams, response: { 200: dataOf(${n.entity}Out), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: itemOut(await items.get(req.params.id)) }));
};
`;
}
