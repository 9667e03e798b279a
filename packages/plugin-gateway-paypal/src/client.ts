import { ProviderTokens, type GatewayContext, type IssuedToken } from '@qhatu/plugin-payments';

const TIMEOUT_MS = 15_000;
/** A token is renewed this long before PayPal says it expires. */
const RENEW_EARLY_MS = 60_000;

/** PayPal's error bodies: the REST shape `{name, message, details[]}` and the OAuth shape `{error, error_description}`. */
export interface PayPalError {
  name?: string;
  message?: string;
  details?: Array<{ issue?: string; description?: string; field?: string }>;
  error?: string;
  error_description?: string;
}

export interface PayPalAnswer<T> {
  ok: boolean;
  status: number;
  json: Partial<T> & PayPalError;
}

/** Access tokens per store credentials, keyed by a SHA-256 of them (the secret is never a key). */
const tokens = new ProviderTokens();

function cacheKey(ctx: GatewayContext): string {
  return ProviderTokens.key(ctx.baseUrl, ctx.credentials.client_id, ctx.credentials.client_secret);
}

/** PayPal refused the token request: its answer is the call's answer. */
class TokenRefused extends Error {
  constructor(readonly answer: PayPalAnswer<never>) {
    super(`PayPal refused the access token request (${answer.status})`);
  }
}

async function read<T>(res: Response): Promise<PayPalAnswer<T>> {
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    throw new Error(`PayPal answered ${res.status} without JSON`);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new Error(`PayPal answered ${res.status} without an object`);
  return { ok: res.ok, status: res.status, json: json as Partial<T> & PayPalError };
}

/** `POST /v1/oauth2/token` with Basic client_id:client_secret; PayPal's refusal is thrown as `TokenRefused`. */
async function requestToken(ctx: GatewayContext): Promise<IssuedToken> {
  const basic = Buffer.from(`${ctx.credentials.client_id ?? ''}:${ctx.credentials.client_secret ?? ''}`, 'utf8').toString('base64');
  const started = Date.now();
  const res = await fetch(`${ctx.baseUrl}/v1/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: 'grant_type=client_credentials',
    signal: AbortSignal.timeout(ctx.timeoutMs ?? TIMEOUT_MS),
  });
  const answer = await read<{ access_token: string; expires_in: number }>(res);
  if (!answer.ok) throw new TokenRefused(answer as PayPalAnswer<never>);
  const { access_token: value, expires_in: seconds } = answer.json;
  if (typeof value !== 'string' || !value) throw new Error(`PayPal answered ${res.status} without an access token`);
  const lifetime = typeof seconds === 'number' && seconds > 0 ? seconds * 1000 : 0;
  return { value, expiresAt: started + Math.max(0, lifetime - RENEW_EARLY_MS) };
}

/** The store's access token, cached until shortly before it expires; concurrent callers share one request. */
async function accessToken(ctx: GatewayContext, key: string): Promise<string | PayPalAnswer<never>> {
  try {
    return await tokens.get(key, () => requestToken(ctx));
  } catch (error) {
    if (error instanceof TokenRefused) return error.answer;
    throw error;
  }
}

export interface CallOptions {
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is (already JSON text), for bodies that must keep their exact bytes. */
  rawBody?: string;
  /** PayPal-Request-Id: PayPal answers a repeated call with the first answer. */
  requestId?: string;
}

/**
 * One PayPal REST call with the store's bearer token. A 401 drops the cached token and the call is
 * made once more with a fresh one (PayPal may revoke a token before its expiry). A refused token
 * request is returned as the answer.
 */
export async function paypal<T>(ctx: GatewayContext, method: 'GET' | 'POST', path: string, options: CallOptions = {}): Promise<PayPalAnswer<T>> {
  const key = cacheKey(ctx);
  for (let attempt = 0; ; attempt++) {
    const token = await accessToken(ctx, key);
    if (typeof token !== 'string') return token as PayPalAnswer<T>;
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
    const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    // The whole resource back from a write, not PayPal's minimal answer.
    if (method === 'POST') Object.assign(headers, { 'content-type': 'application/json', prefer: 'return=representation' });
    if (options.requestId) headers['paypal-request-id'] = options.requestId;
    const res = await fetch(`${ctx.baseUrl}${path}`, { method, headers, body: method === 'POST' ? (body ?? '{}') : undefined, signal: AbortSignal.timeout(ctx.timeoutMs ?? TIMEOUT_MS) });
    if (res.status === 401 && attempt === 0) {
      await res.body?.cancel();
      tokens.drop(key, token);
      continue;
    }
    return read<T>(res);
  }
}

/** PayPal's refusal in one line: `NAME: ISSUE — description` (each issue), else `NAME: message`. */
export function errorMessage(status: number, e: PayPalError): string {
  const name = e.name ?? e.error ?? `PayPal answered ${status}`;
  const details = (Array.isArray(e.details) ? e.details : [])
    .map((d) => [d.issue, d.description].filter(Boolean).join(' — '))
    .filter(Boolean);
  if (details.length) return `${name}: ${details.join('; ')}`;
  const message = e.message ?? e.error_description;
  return message ? `${name}: ${message}` : name;
}
