import type { TokenKind } from '../context.js';
import type { RateLimit } from './rate-limits.js';

/**
 * Who may call a route: nobody needs a token (`public`), the platform operator, anyone naming a
 * store in X-Tenant-ID without a token (`tenant`: sign-in and the like), or tenant tokens of these
 * kinds. A rule that admits `admin` tokens admits `staff` tokens too: a staff member may do what
 * an admin key may, within the permissions of their role.
 */
export type AuthRule = 'public' | 'platform' | 'tenant' | readonly Exclude<TokenKind, 'platform'>[];

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRule;
    /**
     * The permission a staff member (or a role-bound API key) needs on an admin route, e.g.
     * `orders.fulfil`; one of the permissions a plugin declares in `definePlugin({ permissions })`.
     */
    permission?: string;
    /** Error codes this route's API uses for bad input, e.g. checkout's INVALID_REQUEST / INVALID_ID. */
    errorCodes?: { body?: string; params?: string; querystring?: string };
    /** Requests allowed per account and per client address in a window on this route (see `installRateLimits`). */
    rateLimit?: RateLimit;
  }
}

/** Admin routes: admin API keys and staff members (both checked against the route's `permission`). */
export const ADMIN = ['admin', 'staff'] as const satisfies AuthRule;
export const STOREFRONT = ['admin', 'storefront', 'customer'] as const satisfies AuthRule;
