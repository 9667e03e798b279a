import { ProviderTokens, type GatewayContext } from '@qhatu/plugin-payments';

export const TIMEOUT_MS = 15_000;
/** Niubiz's access token lives longer than this; reusing it 10 minutes stays well inside its life. */
const TOKEN_LIFE_MS = 10 * 60_000;
const MAX_CACHED = 1_000;

/** Niubiz refused the store's API user and password: a configuration problem, not an outage. */
export class NiubizCredentialsRefused extends Error {}

// Keyed by a hash of the host and the store's credentials, so no secret is ever a map key.
const tokens = new ProviderTokens(MAX_CACHED);

function cacheKey(ctx: GatewayContext): string {
  const { merchant_id = '', username = '', password = '' } = ctx.credentials;
  return ProviderTokens.key(ctx.baseUrl, merchant_id, username, password);
}

async function requestToken(ctx: GatewayContext): Promise<string> {
  const { username = '', password = '' } = ctx.credentials;
  const res = await fetch(`${ctx.baseUrl}/api.security/v1/security`, {
    method: 'GET',
    headers: { authorization: `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`, accept: 'text/plain' },
    signal: AbortSignal.timeout(ctx.timeoutMs ?? TIMEOUT_MS),
  });
  const text = (await res.text()).trim();
  if (res.status === 401 || res.status === 403) {
    throw new NiubizCredentialsRefused(`Niubiz refused the store's API user and password (security API answered ${res.status})`);
  }
  if (!res.ok || !text || /\s/.test(text)) throw new Error(`Niubiz's security API answered ${res.status} without an access token`);
  return text;
}

/**
 * The store's Niubiz access token (step 1: `GET /api.security/v1/security` with Basic auth, the
 * body is the token itself), reused for 10 minutes. `stale` is a token Niubiz just refused: it is
 * dropped and a fresh one asked for, unless a concurrent call already replaced it.
 */
export function securityToken(ctx: GatewayContext, stale?: string): Promise<string> {
  const key = cacheKey(ctx);
  if (stale !== undefined) tokens.drop(key, stale);
  return tokens.get(key, async () => ({ value: await requestToken(ctx), expiresAt: Date.now() + TOKEN_LIFE_MS }));
}
