import { createQhatuClient, isQhatuApiError, type QhatuClient } from '@qhatu/client';
import { isAlive, touch, type Session } from './session';

/** The store's API on this page's own origin, as the signed-in member. */
export function clientFor(session: Session | null, onUnauthorized?: () => void): QhatuClient {
  const base = createQhatuClient({
    baseUrl: window.location.origin,
    token: session?.token,
    tenantId: session?.tenantId,
    retries: 1,
    fetch: async (request) => {
      // A session left idle past its limit is not used again: the member signs in anew.
      if (session && onUnauthorized && !isAlive()) {
        onUnauthorized();
        return new Response(JSON.stringify({ error: { code: 'UNAUTHENTICATED', message: 'The session ended', details: [] } }), { status: 401, headers: { 'content-type': 'application/json' } });
      }
      const response = await fetch(request);
      if (response.status === 401 && session && onUnauthorized) onUnauthorized();
      else if (session) touch();
      return response;
    },
  });
  return base;
}

/** A path of a plugin, not in the client's generated paths: called through the same client. */
export async function callPath(client: QhatuClient, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<any> {
  const [pathname, search = ''] = path.split('?');
  const query = Object.fromEntries(new URLSearchParams(search));
  const call = client[method] as unknown as (p: string, init?: object) => Promise<unknown>;
  return call(pathname, { params: { query }, ...(method === 'POST' || method === 'PUT' || method === 'PATCH' ? { body: body ?? {} } : {}) });
}

export function messageOf(error: unknown): string {
  if (isQhatuApiError(error)) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

export function codeOf(error: unknown): string | undefined {
  return isQhatuApiError(error) ? error.code : undefined;
}
