import type { IResolvers, MercuriusLoaders } from 'mercurius';
import type { DependencyContainer } from 'tsyringe';
import type { Principal, TokenKind } from '../context.js';

export interface GraphQLContribution {
  typeDefs: string;
  resolvers: IResolvers;
  /** Batched field resolvers (mercurius loaders): one call per field for a whole response. */
  loaders?: MercuriusLoaders;
}

export interface QhatuGraphQLContext {
  container: DependencyContainer;
  tenantId: string;
  principal: Principal;
  /** Throws FORBIDDEN unless the caller's token is of one of these kinds (a list with `admin` admits staff too). */
  require(kinds: readonly Exclude<TokenKind, 'platform'>[]): Principal;
  /**
   * An admin operation: throws FORBIDDEN naming `permission` unless the caller is an admin key or
   * a staff member holding it (the same rule as a REST route's `config.permission`).
   */
  requirePermission(permission: string): Principal;
}

/** `requirePermission(ctx, 'orders.read')` at the top of an admin resolver. */
export function requirePermission(ctx: QhatuGraphQLContext, permission: string): Principal {
  return ctx.requirePermission(permission);
}
