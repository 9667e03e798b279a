import type { GatewayContext } from '@qhatu/plugin-payments';
import { securityToken, TIMEOUT_MS } from './security.js';

/** The fields of Niubiz's answers Qhatu reads (`dataMap` on success, `data` on a refusal). */
export interface NiubizData {
  ACTION_CODE?: string;
  ACTION_DESCRIPTION?: string;
  STATUS?: string;
  TRANSACTION_ID?: string | number;
  BRAND?: string;
  CODERROR?: string | number;
  DSCERROR?: string;
  CODIGODEVOLUCION?: string | number;
  ESTADO?: string;
  DSCESTADO?: string;
  externalReferenceId?: string;
}

export interface NiubizBody {
  errorCode?: number | string;
  errorMessage?: string;
  sessionKey?: string;
  expirationTime?: number | string;
  order?: { actionCode?: string; transactionId?: string | number; status?: string } | null;
  dataMap?: NiubizData | null;
  data?: NiubizData | NiubizData[] | null;
}

export interface NiubizAnswer {
  ok: boolean;
  status: number;
  json: NiubizBody;
}

async function send(ctx: GatewayContext, token: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { authorization: token, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${ctx.baseUrl}${path}`, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(ctx.timeoutMs ?? TIMEOUT_MS),
  });
}

async function read(res: Response): Promise<NiubizAnswer> {
  const text = await res.text();
  if (!text.trim()) return { ok: res.ok, status: res.status, json: {} };
  try {
    const json = JSON.parse(text) as unknown;
    if (json && typeof json === 'object' && !Array.isArray(json)) return { ok: res.ok, status: res.status, json: json as NiubizBody };
  } catch {
    // Niubiz answers some refusals (401 above all) in plain text.
  }
  if (res.ok) throw new Error(`Niubiz answered ${res.status} without a JSON object`);
  return { ok: false, status: res.status, json: { errorMessage: `Niubiz answered ${res.status}: ${text.trim().slice(0, 160)}` } };
}

/**
 * One call to a Niubiz API with the store's access token in `Authorization` (no scheme). A 401
 * means the token expired early: it is dropped and the call repeated once with a fresh one.
 */
export async function niubiz(ctx: GatewayContext, method: 'GET' | 'POST', path: string, body?: unknown): Promise<NiubizAnswer> {
  const token = await securityToken(ctx);
  let res = await send(ctx, token, method, path, body);
  if (res.status === 401) {
    await res.body?.cancel();
    res = await send(ctx, await securityToken(ctx, token), method, path, body);
  }
  return read(res);
}

/** The path segment of a merchant id or transaction id. */
export const segment = (value: string) => encodeURIComponent(value);
