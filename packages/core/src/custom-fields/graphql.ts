import type { GraphQLContribution, QhatuGraphQLContext } from '../graphql/types.js';
import type { CustomFieldType } from './declarations.js';
import { audienceOf, type CustomFields } from './registry.js';

const GRAPHQL_TYPES: Record<CustomFieldType, string> = {
  boolean: 'Boolean',
  string: 'String',
  integer: 'Int',
  decimal: 'Float',
  datetime: 'String',
  enum: 'String',
};

const text = (s: string) => JSON.stringify(s);

/**
 * The GraphQL side of custom fields: a `<Type>CustomFields` type per host type with declared
 * fields (camelCase names), and `customFields` on the host type, resolved from the parent's stored
 * `customFields` (each host's resolvers put them on the objects they answer). Fields that are not
 * public are null for storefront callers. Undefined when no host type has fields.
 */
export function customFieldsGraphQL(fields: CustomFields): GraphQLContribution | undefined {
  const typeDefs: string[] = [];
  const resolvers: GraphQLContribution['resolvers'] = {};
  for (const host of fields.hosts()) {
    const declared = fields.fields(host.entity);
    if (!host.graphqlType || declared.length === 0) continue;
    const type = `${host.graphqlType}CustomFields`;
    const lines = declared.map((f) => {
      const notes = [f.description, f.public ? undefined : 'Null for storefront keys and customers.', f.type === 'datetime' ? 'ISO 8601.' : undefined];
      const enumNote = f.values ? `One of: ${f.values.join(', ')}.` : undefined;
      const description = [...notes, enumNote].filter(Boolean).join(' ');
      const required = f.public && !f.nullable ? '!' : '';
      return `  ${description ? `${text(description)} ` : ''}${f.graphqlName}: ${GRAPHQL_TYPES[f.type]}${required}`;
    });
    typeDefs.push(`${text(`Custom fields of the ${host.entity} (declared by the store's plugins and its qhatu.config.ts).`)}\ntype ${type} {\n${lines.join('\n')}\n}`);
    typeDefs.push(`extend type ${host.graphqlType} { ${text(`The ${host.entity}'s custom fields.`)} customFields: ${type}! }`);
    resolvers[host.graphqlType] = {
      customFields: (parent: { customFields?: unknown }, _args: unknown, ctx: QhatuGraphQLContext) => {
        const values = fields.present(host.entity, parent.customFields, audienceOf(ctx.principal));
        return Object.fromEntries(declared.map((f) => [f.graphqlName, values[f.name] ?? null]));
      },
    };
  }
  if (typeDefs.length === 0) return undefined;
  return { typeDefs: typeDefs.join('\n'), resolvers, access: {} };
}
