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
  /** Throws FORBIDDEN unless the caller's token is of one of these kinds. */
  require(kinds: readonly Exclude<TokenKind, 'platform'>[]): Principal;
}
