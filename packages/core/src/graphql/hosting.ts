import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GraphQLError, Kind, parse, type ASTVisitor, type ValidationContext } from 'graphql';
import mercurius from 'mercurius';
import type { DependencyContainer } from 'tsyringe';
import type { AccessTokens } from '../auth/tokens.js';
import { AppError, isAppError, withArticle } from '../errors.js';
import { assertPermission, isAdminRule, PermissionRegistry } from '../auth/permissions.js';
import { admits, authorize } from '../http/auth.js';
import { databaseError, RETRY_AFTER_SECONDS, unavailableError } from '../http/errors.js';
import { PluginLoadError, type QhatuPlugin } from '../plugin.js';
import { playgroundHtml, playgroundRoutes } from './playground.js';
import { cacheResponses, GRAPHQL_CALLERS, principalOf } from './response-cache.js';
import { chooseLocale } from '../translations/locales.js';
import { chooseMarket, headerMarket, MARKET_HEADER } from '../markets/market.js';
import type { GraphQLAccess, GraphQLFieldInfo, QhatuGraphQLContext, QhatuResolver } from './types.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every root field of the GraphQL schema: its plugin, who may call it and the permission it needs. */
    graphqlFields: readonly GraphQLFieldInfo[];
  }
}

const baseTypeDefs = `
  type PageInfo { hasNextPage: Boolean!, hasPreviousPage: Boolean!, startCursor: String, endCursor: String }
  type Query { "The API version." apiVersion: String! }
  type Mutation { "Does nothing; plugins add mutations." noop: Boolean }
`;

const MAX_DEPTH = 8;
const MAX_FIELDS = 400;

/** Rejects documents that select more than MAX_FIELDS fields in all (fragments counted where spread). */
function complexityRule(context: ValidationContext): ASTVisitor {
  let fields = 0;
  return {
    Field() {
      fields += 1;
      if (fields === MAX_FIELDS + 1) {
        context.reportError(new GraphQLError(`The query selects more than ${MAX_FIELDS} fields`, { extensions: { code: 'VALIDATION_ERROR' } }));
      }
    },
    FragmentSpread(node) {
      const fragment = context.getFragment(node.name.value);
      if (!fragment) return;
      const inner = fragment.selectionSet.selections.filter((s) => s.kind === Kind.FIELD).length;
      fields += inner;
    },
  };
}

/** Maps an error to the specification's GraphQL codes. */
function graphqlCode(error: unknown): string {
  if (isAppError(error)) {
    if (error.status === 404) return 'RESOURCE_NOT_FOUND';
    if (error.status === 400 && error.code !== 'TENANT_REQUIRED') return 'VALIDATION_ERROR';
    return error.code;
  }
  return 'INTERNAL_ERROR';
}

/** The fields a contribution's typeDefs add to Query and Mutation. */
function rootFields(plugin: string, typeDefs: string): Array<{ type: 'Query' | 'Mutation'; field: string }> {
  let document;
  try {
    document = parse(typeDefs);
  } catch (error) {
    throw new PluginLoadError(`Plugin "${plugin}" contributes GraphQL typeDefs that do not parse: ${(error as Error).message}`);
  }
  const found: Array<{ type: 'Query' | 'Mutation'; field: string }> = [];
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OBJECT_TYPE_DEFINITION && definition.kind !== Kind.OBJECT_TYPE_EXTENSION) continue;
    const type = definition.name.value;
    if (type !== 'Query' && type !== 'Mutation') continue;
    for (const field of definition.fields ?? []) found.push({ type, field: field.name.value });
  }
  return found;
}

/** Refuses a root field that names no caller, or an admin one without a declared permission (as REST routes are). */
function checkAccess(plugin: string, root: { type: string; field: string }, access: GraphQLAccess | undefined, permissions: PermissionRegistry): void {
  const where = `GraphQL field ${root.type}.${root.field} of plugin "${plugin}"`;
  if (!access || !Array.isArray(access.auth) || access.auth.length === 0) {
    throw new PluginLoadError(`${where} declares no access: add access.${root.type}.${root.field} = { auth: [...], permission }`);
  }
  if (access.permission !== undefined && !permissions.has(access.permission)) {
    throw new PluginLoadError(`${where} names the permission "${access.permission}", which no installed plugin declares (add it to definePlugin({ permissions }))`);
  }
  if (isAdminRule(access.auth) && access.permission === undefined) {
    throw new PluginLoadError(`${where} is an admin field and names no permission: add a permission, e.g. '${plugin}.read'`);
  }
  if (access.cache !== undefined) {
    if (root.type !== 'Query') throw new PluginLoadError(`${where} is a mutation: only Query fields are cached`);
    if (!permissions.has(access.cache.unless)) {
      throw new PluginLoadError(`${where} caches answers unless the caller holds "${access.cache.unless}", which no installed plugin declares`);
    }
  }
}

/** A root resolver that runs only for the callers its access admits. */
function guarded(access: GraphQLAccess, resolve: QhatuResolver): QhatuResolver {
  return (parent, args, ctx, info) => {
    if (!admits(access.auth, ctx.principal.kind)) {
      throw AppError.forbidden(`This operation needs ${withArticle(access.auth.join(' or '))} token`);
    }
    if (access.permission !== undefined) assertPermission(ctx.principal, access.permission);
    return resolve(parent, args, ctx, info);
  };
}

export async function hostGraphQL(
  app: FastifyInstance,
  plugins: QhatuPlugin[],
  container: DependencyContainer,
  tokens: AccessTokens,
): Promise<void> {
  const contributions = plugins.flatMap((p) => (p.graphql ? [{ plugin: p.name, ...p.graphql }] : []));
  const schema = [baseTypeDefs, ...contributions.map((c) => c.typeDefs)].join('\n');
  const resolvers: Record<string, Record<string, unknown>> = { Query: { apiVersion: () => 'v1' } };
  const loaders: Record<string, Record<string, unknown>> = {};
  const fields: GraphQLFieldInfo[] = [];
  const permissions = container.resolve(PermissionRegistry);
  for (const c of contributions) {
    for (const root of rootFields(c.plugin, c.typeDefs)) {
      const access = c.access[root.type]?.[root.field];
      checkAccess(c.plugin, root, access, permissions);
      fields.push({ plugin: c.plugin, ...root, ...access! });
    }
    for (const [type, declared] of Object.entries(c.access)) {
      for (const field of Object.keys(declared ?? {})) {
        if (!fields.some((f) => f.plugin === c.plugin && f.type === type && f.field === field)) {
          throw new PluginLoadError(`Plugin "${c.plugin}" declares access for ${type}.${field}, a field its typeDefs do not add`);
        }
      }
    }
    for (const [type, byField] of Object.entries(c.resolvers)) {
      const own = { ...(byField as Record<string, unknown>) };
      if (type === 'Query' || type === 'Mutation') {
        for (const [field, resolve] of Object.entries(own)) {
          const access = c.access[type]?.[field];
          if (!access) throw new PluginLoadError(`Plugin "${c.plugin}" resolves ${type}.${field}, which its typeDefs do not add`);
          own[field] = guarded(access, resolve as QhatuResolver);
        }
      }
      resolvers[type] = { ...(resolvers[type] ?? {}), ...own };
    }
    for (const [type, fields] of Object.entries(c.loaders ?? {})) {
      loaders[type] = { ...(loaders[type] ?? {}), ...(fields as Record<string, unknown>) };
    }
  }

  // The specification serves the playground on GET of the GraphQL path.
  app.addHook('onRequest', async (request, reply) => {
    const [path, search] = request.url.split('?');
    if (request.method === 'GET' && path === '/graphql' && !new URLSearchParams(search ?? '').has('query')) {
      return reply.type('text/html; charset=utf-8').send(playgroundHtml);
    }
  });

  playgroundRoutes(app, () => app.graphql.schema);
  app.decorate('graphqlFields', fields);
  cacheResponses(app, container, tokens, fields);

  await app.register(mercurius, {
    schema,
    resolvers: resolvers as never,
    loaders: loaders as never,
    path: '/graphql',
    graphiql: false,
    queryDepth: MAX_DEPTH,
    validationRules: [complexityRule],
    context: async (request: FastifyRequest): Promise<Partial<QhatuGraphQLContext> & { authError?: AppError }> => {
      try {
        const principal = principalOf(request) ?? (await authorize(request, [...GRAPHQL_CALLERS], tokens))!;
        return {
          container,
          principal,
          tenantId: principal.tenantId!,
          require(kinds) {
            if (!admits(kinds, principal.kind)) {
              throw AppError.forbidden(`This operation needs ${withArticle(kinds.join(' or '))} token`);
            }
            return principal;
          },
          requirePermission(permission) {
            return assertPermission(principal, permission);
          },
          locale(asked) {
            return chooseLocale(principal.locales, { locale: asked, acceptLanguage: request.headers['accept-language'], marketLocale: headerMarket(principal, request)?.defaultLocale }, 'locale');
          },
          market(asked) {
            const header = request.headers[MARKET_HEADER];
            return chooseMarket(principal, { market: asked?.market ?? (Array.isArray(header) ? header[0] : header) ?? null, currency: asked?.currency ?? null }, { market: asked?.market ? 'market' : 'headers.x-market', currency: 'currency' });
          },
        };
      } catch (error) {
        // A token that could not be looked up (the database unavailable) is not a bad token.
        return { container, authError: isAppError(error) ? error : (unavailableError(error) ?? AppError.unauthenticated()) };
      }
    },
    errorFormatter: (execution, context) => {
      // mercurius wraps validation failures (depth, unknown fields) in one error that carries the real ones.
      const flat = (execution.errors ?? []).flatMap((e) => {
        const inner = ((e as GraphQLError).originalError as { errors?: GraphQLError[] } | undefined)?.errors;
        return Array.isArray(inner) && inner.length > 0 ? inner : [e];
      });
      const errors = flat.map((e) => {
        const thrown = (e as GraphQLError).originalError ?? e;
        // A database error the client caused (a NUL character, a taken unique value) reads as it does over REST.
        const original = isAppError(thrown) || !e.path ? thrown : (databaseError(thrown) ?? thrown);
        const code = (e.extensions?.code as string | undefined) ?? (isAppError(original) ? graphqlCode(original) : e.path ? 'INTERNAL_ERROR' : 'VALIDATION_ERROR');
        const message = code === 'INTERNAL_ERROR' ? 'An unexpected error occurred' : original === thrown ? e.message : (original as Error).message;
        return { message, locations: e.locations, path: e.path, extensions: { code, path: e.path ?? null } };
      });
      // As over REST, an answer the database could not give says when to ask again.
      if (errors.some((e) => e.extensions.code === 'SERVICE_UNAVAILABLE')) context.reply?.header('retry-after', String(RETRY_AFTER_SECONDS));
      return { statusCode: 200, response: { data: execution.data ?? null, errors } };
    },
  });

  app.graphql.addHook('preExecution', async (_schema, _document, context) => {
    const failure = (context as { authError?: AppError }).authError;
    if (failure) {
      const code = failure.status === 401 ? 'UNAUTHENTICATED' : failure.status === 403 ? failure.code === 'FORBIDDEN' ? 'FORBIDDEN' : failure.code : failure.code;
      throw new mercurius.ErrorWithProps(failure.message, { code });
    }
  });
}
