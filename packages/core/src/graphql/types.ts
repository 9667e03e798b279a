import type { GraphQLResolveInfo, GraphQLScalarType } from 'graphql';
import type { DependencyContainer } from 'tsyringe';
import type { Principal, TokenKind } from '../context.js';
import type { LocaleChoice } from '../translations/locales.js';
import type { MarketChoice } from '../markets/market.js';

export interface QhatuGraphQLContext {
  container: DependencyContainer;
  tenantId: string;
  principal: Principal;
  /** Throws FORBIDDEN unless the caller's token is of one of these kinds (a list with `admin` admits staff too). */
  require(kinds: readonly Exclude<TokenKind, 'platform'>[]): Principal;
  /**
   * Throws FORBIDDEN naming `permission` unless the caller is an admin key or a staff member
   * holding it. A root field's own permission is declared in `access` and checked by core; this is
   * for a second permission a resolver needs on some paths only.
   */
  requirePermission(permission: string): Principal;
  /**
   * The locale a read answers in: `asked` (a field's `locale` argument; one the store does not list
   * is a LOCALE_NOT_LISTED error), else the request's Accept-Language, else the store's default.
   */
  locale(asked?: string | null): LocaleChoice;
  /**
   * What the request is priced in (decision 0097): the market `asked.market` names, else the
   * `X-Market` header's; the currency asked, else the market's, else the store's default.
   */
  market(asked?: { market?: string | null; currency?: string | null }): MarketChoice;
}

/** A field resolver, given the caller's context as core builds it. */
export type QhatuResolver<TParent = any, TArgs = any> = (parent: TParent, args: TArgs, ctx: QhatuGraphQLContext, info: GraphQLResolveInfo) => unknown;

/** Resolvers by type and field, as mercurius takes them, typed with Qhatu's context. */
export type QhatuResolvers = Record<string, Record<string, QhatuResolver> | GraphQLScalarType>;

/** A batched field resolver (a mercurius loader): one call per field for a whole response. */
export type QhatuLoader<TParent = any> = (queries: Array<{ obj: TParent; params: any }>, ctx: QhatuGraphQLContext) => Promise<unknown[]> | unknown[];

/** Loaders by type and field. */
export type QhatuLoaders = Record<string, Record<string, QhatuLoader | { loader: QhatuLoader; opts?: { cache?: boolean } }>>;

/**
 * Who may call a root field, read as a REST route's `config.auth` and `config.permission` are:
 * token kinds (a list with `admin` admits staff too), and, for an admin field (`admin` without
 * `storefront`), the permission a staff member or a role-bound key needs.
 */
export interface GraphQLAccess {
  auth: readonly Exclude<TokenKind, 'platform'>[];
  permission?: string;
  /**
   * The field's answer depends only on the store, its arguments and the data of the read cache's
   * `topic`, for every caller that does not hold `unless` (storefront keys and customers, say,
   * where admins see drafts). An operation made only of such fields of one topic is answered
   * from memory, whole, until the store's topic changes.
   */
  cache?: { topic: string; unless: string };
}

export interface GraphQLContribution {
  typeDefs: string;
  resolvers: QhatuResolvers;
  /**
   * Who may call each field the contribution adds to Query and Mutation. Core checks it before the
   * resolver runs, and refuses to start when a root field has no entry, or an admin one names no
   * declared permission.
   */
  access: { Query?: Record<string, GraphQLAccess>; Mutation?: Record<string, GraphQLAccess> };
  /** Batched field resolvers (mercurius loaders): one call per field for a whole response. */
  loaders?: QhatuLoaders;
}

/** A root field of the app's GraphQL schema, as its plugin declared it. */
export interface GraphQLFieldInfo {
  plugin: string;
  type: 'Query' | 'Mutation';
  field: string;
  auth: GraphQLAccess['auth'];
  permission?: string;
  cache?: GraphQLAccess['cache'];
}

/** `requirePermission(ctx, 'orders.read')` inside a resolver, for a permission beyond the field's own. */
export function requirePermission(ctx: QhatuGraphQLContext, permission: string): Principal {
  return ctx.requirePermission(permission);
}
