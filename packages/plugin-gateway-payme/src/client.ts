import { ProviderTokens, type GatewayContext, type IssuedToken } from '@qhatu/plugin-payments';

/** The API version Pay-me's current documentation names for `/token`, `/nonce` and `/charges`. */
export const ALG_API_VERSION = '1709847567';

/** What the store's token may do: query, charge from Flex, cancel (extorno). */
export const TOKEN_SCOPE = 'create:token post:charges get:charges delete:charges';

const TIMEOUT_MS = 15_000;

/** Alignet's status block, on every answer (and the only content of most errors). */
export interface AlignetMeta {
  status?: { code?: string; message_ilgn?: Array<{ locale?: string; value?: string }> | null } | null;
}

export interface AlignetAnswer {
  success?: boolean | string;
  message?: string;
  error?: string;
  error_description?: string;
  meta?: AlignetMeta | null;
  authorization?: { meta?: AlignetMeta | null } | null;
  nonce_creation?: { meta?: AlignetMeta | null } | null;
}

export interface Answer<T> {
  ok: boolean;
  status: number;
  json: Partial<T> & AlignetAnswer;
}

/**
 * Where `/token` and `/nonce` live. Alignet serves them from its auth host (`auth.alignet.io`,
 * `auth.preprod.alignet.io`) next to the API host (`api.alignet.io`, `api.preprod.alignet.io`),
 * so a leading `api.` host label becomes `auth.`. Any other host (a proxy, a test double) is
 * taken to serve both, at the same origin and path.
 */
export function authBaseUrl(apiBaseUrl: string): string {
  const url = new URL(apiBaseUrl);
  if (url.hostname.startsWith('api.')) url.hostname = `auth.${url.hostname.slice('api.'.length)}`;
  return url.toString().replace(/\/+$/, '');
}

/** Alignet's own words for an answer: the status message, else an OAuth/gateway error, else the HTTP status. */
export function alignetMessage(status: number, answer: AlignetAnswer): string {
  const meta = answer.meta ?? answer.authorization?.meta ?? answer.nonce_creation?.meta;
  const words = meta?.status?.message_ilgn?.find((m) => m?.value)?.value ?? answer.error_description ?? answer.message ?? answer.error;
  const code = meta?.status?.code;
  return [words ?? `Pay-me answered ${status}`, code && code !== '00' ? code : null].filter(Boolean).join(' — ');
}

/** Alignet writes booleans as `true` or `"true"`. */
export const truthy = (value: unknown) => value === true || value === 'true';

async function send<T>(ctx: GatewayContext, url: string, method: 'GET' | 'POST' | 'DELETE', headers: Record<string, string>, body?: unknown): Promise<Answer<T>> {
  const all: Record<string, string> = { accept: 'application/json', 'alg-api-version': ALG_API_VERSION, ...headers };
  if (body !== undefined) all['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers: all, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(ctx.timeoutMs ?? TIMEOUT_MS) });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    throw new Error(`Pay-me answered ${res.status} without JSON`);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new Error(`Pay-me answered ${res.status} without an object`);
  return { ok: res.ok, status: res.status, json: json as Partial<T> & AlignetAnswer };
}

/** Thrown when Alignet refuses the store's client credentials: a reason to show, not an outage. */
export class PaymeAuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PaymeAuthError';
  }
}

// Access tokens per set of credentials and host: keyed by a SHA-256, so no secret is ever a key.
const tokens = new ProviderTokens();

function cacheKey(ctx: GatewayContext): string {
  const { client_id = '', client_secret = '' } = ctx.credentials;
  return ProviderTokens.key(ctx.baseUrl, client_id, client_secret);
}

async function requestToken(ctx: GatewayContext): Promise<IssuedToken> {
  const res = await send<{ access_token: string; expires_in: string | number }>(ctx, `${authBaseUrl(ctx.baseUrl)}/token`, 'POST', {}, {
    action: 'authorize',
    grant_type: 'client_credentials',
    audience: ctx.baseUrl,
    client_id: ctx.credentials.client_id,
    client_secret: ctx.credentials.client_secret,
    scope: TOKEN_SCOPE,
  });
  const token = res.json.access_token;
  if (!res.ok || !truthy(res.json.success ?? true) || typeof token !== 'string' || !token) {
    if (res.status >= 500) throw new Error(`Pay-me's auth service answered ${res.status}`);
    throw new PaymeAuthError(`Pay-me refused the store's credentials: ${alignetMessage(res.status, res.json)}`);
  }
  const seconds = Number(res.json.expires_in);
  const life = Number.isFinite(seconds) && seconds > 0 ? seconds : 300;
  // Renewed a little before Alignet's expiry, so no request carries a token about to lapse.
  return { value: token, expiresAt: Date.now() + (life - Math.min(60, life / 2)) * 1000 };
}

/** The store's access token: reused until shortly before it expires; one request at a time per store. */
export function accessToken(ctx: GatewayContext): Promise<string> {
  return tokens.get(cacheKey(ctx), () => requestToken(ctx));
}

function forgetToken(ctx: GatewayContext, token: string): void {
  tokens.drop(cacheKey(ctx), token);
}

/**
 * A call with the store's bearer token. A 401 means Alignet no longer accepts the cached token
 * (revoked, or expired early): it is dropped and the call made once more with a new one.
 */
export async function withToken<T>(ctx: GatewayContext, url: string, method: 'GET' | 'POST' | 'DELETE', body?: unknown): Promise<Answer<T>> {
  const token = await accessToken(ctx);
  const res = await send<T>(ctx, url, method, { authorization: `Bearer ${token}` }, body);
  if (res.status !== 401) return res;
  forgetToken(ctx, token);
  return send<T>(ctx, url, method, { authorization: `Bearer ${await accessToken(ctx)}` }, body);
}

/** A call to the API host (`/charges…`). */
export function api<T>(ctx: GatewayContext, method: 'GET' | 'DELETE', path: string): Promise<Answer<T>> {
  return withToken<T>(ctx, `${ctx.baseUrl}${path}`, method);
}
