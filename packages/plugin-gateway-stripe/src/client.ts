import { createHash } from 'node:crypto';
import { onFirstUse } from '@qhatu/core';
import type { GatewayContext } from '@qhatu/plugin-payments';
import type Stripe from 'stripe';

const TIMEOUT_MS = 20_000;
/**
 * One retry, half a second to a second later. Every write carries Qhatu's idempotency key, so a
 * retried write is answered with the first one's outcome by Stripe and never charges or refunds
 * twice; the retry turns a dropped connection, a 409 or a 5xx into the real outcome instead of a
 * payment recorded failed while Stripe may have charged it. One, not the SDK's default of two:
 * the shopper waits for the charge, and each attempt may take the whole timeout.
 */
const MAX_NETWORK_RETRIES = 1;
/** Stores share clients per base URL and key; the oldest is dropped past this many. */
const MAX_CLIENTS = 100;

const clients = new Map<string, Stripe>();

/**
 * Stripe's Node SDK, loaded on its first use rather than when the process starts (it is some 200
 * modules): a store that takes no Stripe payment never loads it.
 */
export const loadStripe = onFirstUse(() => import('stripe').then((module) => module.default));

/** The Stripe client for this store's secret key at the operator's base URL (protocol, host, port), with the operator's timeout if set. */
export async function stripeClient(ctx: GatewayContext): Promise<Stripe> {
  const StripeSdk = await loadStripe();
  const key = ctx.credentials.secret_key ?? '';
  // The map is keyed by a hash, so no secret key sits in it as a key.
  const timeout = ctx.timeoutMs ?? TIMEOUT_MS;
  const id = createHash('sha256').update(ctx.baseUrl).update('\0').update(key).update(`\0${timeout}`).digest('hex');
  const cached = clients.get(id);
  if (cached) {
    clients.delete(id);
    clients.set(id, cached);
    return cached;
  }
  // Without telemetry the SDK neither writes an id file under ~/.config/stripe nor sends the machine's OS.
  const client = new StripeSdk(key, { ...address(ctx.baseUrl), timeout, maxNetworkRetries: MAX_NETWORK_RETRIES, telemetry: false });
  clients.set(id, client);
  if (clients.size > MAX_CLIENTS) clients.delete(clients.keys().next().value!);
  return client;
}

/** The SDK takes an origin and adds `/v1/…` itself, so a base URL with a path cannot be honoured. */
function address(baseUrl: string): { host: string; port: number; protocol: 'http' | 'https' } {
  const url = new URL(baseUrl);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`Stripe's base URL must be http or https, not ${url.protocol}`);
  if (url.pathname !== '/' || url.search || url.hash) throw new Error("Stripe's base URL must be an origin (protocol, host and port) without a path");
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443,
    protocol,
  };
}
