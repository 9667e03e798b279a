import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isPrivateAddress, resolveHost } from './address-policy.js';

export interface SendResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
}

/**
 * POSTs a signed body. The receiver's name is resolved here and every address checked before
 * connecting, so a name that points somewhere private after it was registered is still refused.
 */
export async function send(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<SendResult> {
  const started = Date.now();
  const done = (status: number | null, error: string | null): SendResult => ({
    ok: status !== null && status >= 200 && status < 300,
    status,
    error,
    durationMs: Date.now() - started,
  });
  const target = new URL(url);
  let addresses: string[];
  try {
    addresses = await resolveHost(target.hostname);
  } catch (error) {
    return done(null, `cannot resolve ${target.hostname}: ${(error as Error).message}`);
  }
  const allowed = options.allowPrivate ? addresses : addresses.filter((a) => !isPrivateAddress(a));
  if (allowed.length === 0) return done(null, `${target.hostname} resolves to an address that is not allowed`);
  // Connect only to the address checked above, whatever the name resolves to a moment later.
  const pinned: LookupFunction = (_host, opts, callback) => {
    const address = allowed[0];
    const family = address.includes(':') ? 6 : 4;
    if ((opts as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  return new Promise<SendResult>((resolve) => {
    const client = target.protocol === 'https:' ? https : http;
    const request = client.request(
      target,
      { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) }, lookup: pinned },
      (response) => {
        response.resume(); // the body is not needed; read it so the socket is freed
        response.on('end', () => resolve(done(response.statusCode ?? null, null)));
        response.on('error', (err) => resolve(done(response.statusCode ?? null, err.message)));
      },
    );
    request.setTimeout(options.timeoutMs, () => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    request.on('error', (err) => resolve(done(null, err.message)));
    request.end(body);
  });
}
