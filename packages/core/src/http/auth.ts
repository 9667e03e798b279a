import type { FastifyRequest } from 'fastify';
import type { AccessTokens } from '../auth/tokens.js';
import { TenantContext, type Principal, type TokenKind } from '../context.js';
import { AppError, withArticle } from '../errors.js';
import type { AuthRule } from './route-config.js';
import { isUuid } from './schemas.js';


export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw AppError.unauthenticated('The Authorization header must read "Bearer <token>"');
  return m[1];
}

export function tenantHeader(request: FastifyRequest): string {
  const raw = request.headers['x-tenant-id'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (!value) throw new AppError(400, 'TENANT_REQUIRED', 'The X-Tenant-ID header is required');
  if (!isUuid(value)) throw new AppError(400, 'TENANT_REQUIRED', 'The X-Tenant-ID header must be a tenant id (UUID)');
  return value.toLowerCase();
}

/** Whether a rule's list of token kinds lets `kind` in; a rule that admits admin keys admits staff members too. */
export function admits(rule: readonly TokenKind[], kind: TokenKind): boolean {
  return rule.includes(kind) || (kind === 'staff' && rule.includes('admin'));
}

/**
 * Resolves who calls and for which tenant, by the route's rule, and records both in the
 * request's context. Throws the contract's 400/401/403 errors.
 */
export async function authorize(request: FastifyRequest, rule: AuthRule, tokens: AccessTokens): Promise<Principal | undefined> {
  if (rule === 'public') return undefined;
  const scope = TenantContext.current();
  if (rule === 'platform') {
    const token = bearerToken(request);
    if (!token) throw AppError.unauthenticated();
    if (!tokens.isPlatformToken(token)) {
      if (/^qh[ascvm]_/.test(token)) throw AppError.forbidden('This operation needs the platform credential');
      throw AppError.unauthenticated('The bearer token is not valid');
    }
    const principal: Principal = { tokenId: null, kind: 'platform', tenantId: null, subjectId: null, id: null, permissions: new Set() };
    if (scope) scope.principal = principal;
    return principal;
  }
  const tenantId = tenantHeader(request);
  if (rule === 'tenant') {
    // Sign-in and the like: the store is named, nobody is signed in yet.
    if (scope) scope.tenantId = tenantId;
    return undefined;
  }
  const token = bearerToken(request);
  if (!token) throw AppError.unauthenticated();
  if (tokens.isPlatformToken(token)) {
    throw AppError.forbidden('The platform credential is for /api/v1/tenants; use a tenant API key here');
  }
  const principal = await tokens.authenticate(token, tenantId);
  if (!admits(rule, principal.kind)) {
    throw AppError.forbidden(`This operation needs ${withArticle(rule.join(' or '))} token; this one is ${withArticle(principal.kind)} token`);
  }
  if (scope) {
    scope.tenantId = tenantId;
    scope.principal = principal;
  }
  return principal;
}
