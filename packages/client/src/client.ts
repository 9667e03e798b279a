import createClient, { type Client, type FetchResponse, type MaybeOptionalInit, type Middleware } from 'openapi-fetch';
import type { HttpMethod, MediaType, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import type { QhatuErrorCode } from './error-codes.js';
import { QhatuApiError } from './errors.js';
import type { paths } from './schema.js';

export interface QhatuClientOptions {
  /** The service's address, e.g. `https://api.example.com` (paths start with `/api/v1`, `/admin`, `/shipping`). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>`: an API key, or a customer, staff or vendor session token. */
  token?: string;
  /** Sent as `X-Tenant-ID` (the store); tenant routes need it, platform routes do not. */
  tenantId?: string;
  /** More headers for every request. */
  headers?: Record<string, string>;
  /** Extra attempts after a network failure or a 429/502/503/504 (default 2); PATCH is never retried. */
  retries?: number;
  /** Makes the `Idempotency-Key` of a POST that did not bring one (default: a random UUID). */
  idempotencyKey?: () => string;
  /** The fetch to use (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
}

type Media = MediaType;
// As openapi-fetch's own: the init argument is optional when nothing in it is required.
type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];
type Success<Operation, Init> = Operation extends Record<string | number, any> ? Exclude<FetchResponse<Operation, Init, Media>['data'], undefined> : never;
// An answer without a body (204) resolves to undefined.
type Data<Operation, Init> = [Success<Operation, Init>] extends [never] ? undefined : Success<Operation, Init>;

/**
 * A call that resolves to the answer's body and throws {@link QhatuApiError} on any non-2xx answer.
 * `Paths` is the store's `paths` type: the full store's by default, or one generated from a store's
 * own `/openapi.json` (see README).
 */
export type DataMethod<Method extends HttpMethod, Paths extends {} = paths> = <
  Path extends PathsWithMethod<Paths, Method>,
  Init extends MaybeOptionalInit<Paths[Path], Method & keyof Paths[Path]>,
>(
  url: Path,
  ...init: InitParam<Init>
) => Promise<Data<OperationOf<Paths, Path, Method>, Init>>;

/** The operation of a path and method (never where the path has no such method). */
type OperationOf<Paths, Path extends keyof Paths, Method extends HttpMethod> = Method extends keyof Paths[Path] ? Paths[Path][Method] : never;

/** What a GET path answers, e.g. `ResponseOf<'/api/v1/catalog/products'>`. */
export type ResponseOf<Path extends PathsWithMethod<Paths, 'get'>, Paths extends {} = paths> = Data<OperationOf<Paths, Path, 'get'>, {}>;

type QueryOf<Path extends PathsWithMethod<Paths, 'get'>, Paths extends {}> = OperationOf<Paths, Path, 'get'> extends { parameters: { query?: infer Query } } ? NonNullable<Query> : never;
/** The cursor lists: paths that take `cursor` and answer `{ data: [...], meta: { pagination } }`. */
export type ListPath<Paths extends {} = paths> = {
  [Path in PathsWithMethod<Paths, 'get'>]: 'cursor' extends keyof QueryOf<Path, Paths>
    ? ResponseOf<Path, Paths> extends { data: unknown[]; meta: { pagination: { has_next: boolean } } }
      ? Path
      : never
    : never;
}[PathsWithMethod<Paths, 'get'>];
/** One element of a list path's `data`. */
export type ItemOf<Path extends ListPath<Paths>, Paths extends {} = paths> = ResponseOf<Path, Paths> extends { data: Array<infer Item> } ? Item : never;
type ListInit<Path extends ListPath<Paths>, Paths extends {}> = MaybeOptionalInit<Paths[Path], 'get' & keyof Paths[Path]>;

/** The client of a store whose API is `Paths`; what it throws is a `QhatuApiError<Code>`. */
export interface QhatuClient<Paths extends {} = paths, Code extends string = QhatuErrorCode> {
  GET: DataMethod<'get', Paths>;
  POST: DataMethod<'post', Paths>;
  PUT: DataMethod<'put', Paths>;
  PATCH: DataMethod<'patch', Paths>;
  DELETE: DataMethod<'delete', Paths>;
  /** Every page of a cursor list, from the first (or `params.query.cursor`) to the last, one request each. */
  pages<Path extends ListPath<Paths>>(url: Path, ...init: InitParam<ListInit<Path, Paths>>): AsyncGenerator<ResponseOf<Path, Paths>, void, undefined>;
  /** Every element of a cursor list, fetched a page at a time (`params.query.limit` sets the page size). */
  items<Path extends ListPath<Paths>>(url: Path, ...init: InitParam<ListInit<Path, Paths>>): AsyncGenerator<ItemOf<Path, Paths>, void, undefined>;
  /** The same client with another token or store, e.g. a customer's session: `client.with({ token })`. */
  with(options: Partial<QhatuClientOptions>): QhatuClient<Paths, Code>;
  /** The underlying openapi-fetch client (answers `{ data, error, response }` and never throws on an HTTP status). */
  readonly raw: Client<Paths, Media>;
}

const RETRIED_STATUSES = new Set([429, 502, 503, 504]);

/**
 * A typed client of the Qhatu REST API: of the full store by default, or of a store with plugins
 * of its own, given the `paths` generated from its `/openapi.json` (and, optionally, its error codes):
 * `createQhatuClient<paths, QhatuErrorCode | 'GIFT_WRAP_SOLD_OUT'>({ baseUrl })`.
 */
export function createQhatuClient<Paths extends {} = paths, Code extends string = QhatuErrorCode>(options: QhatuClientOptions): QhatuClient<Paths, Code> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.tenantId) headers['x-tenant-id'] = options.tenantId;
  const raw = createClient<Paths, Media>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), headers, fetch: retrying(options) });
  // Web Crypto's randomUUID: global in Node 20 and in browsers, so the client runs in both.
  raw.use(idempotency(options.idempotencyKey ?? (() => globalThis.crypto.randomUUID())));

  const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE') =>
    (async (url: string, init?: Record<string, unknown>) => {
      const { data, error, response } = await (raw[method] as (u: string, i?: unknown) => Promise<FetchResponse<any, any, Media>>)(url, init);
      if (!response.ok) throw QhatuApiError.fromResponse<Code>(method, response, error);
      return response.status === 204 ? undefined : data;
    }) as never;
  const client: QhatuClient<Paths, Code> = {
    GET: call('GET'),
    POST: call('POST'),
    PUT: call('PUT'),
    PATCH: call('PATCH'),
    DELETE: call('DELETE'),
    async *pages(url, ...[init]) {
      const base = (init ?? {}) as { params?: { query?: Record<string, unknown> } };
      let cursor = base.params?.query?.cursor as string | undefined;
      for (;;) {
        const query = { ...base.params?.query, ...(cursor ? { cursor } : {}) };
        const page = (await (client.GET as (u: string, i: unknown) => Promise<any>)(String(url), { ...base, params: { ...base.params, query } })) as ResponseOf<typeof url, Paths>;
        yield page;
        const next = (page as { meta: { pagination: { cursor?: string | null; has_next: boolean } } }).meta.pagination;
        if (!next.has_next || !next.cursor) return;
        cursor = next.cursor;
      }
    },
    async *items(url, ...init) {
      for await (const page of client.pages(url, ...init)) yield* (page as unknown as { data: ItemOf<typeof url, Paths>[] }).data;
    },
    with: (more) => createQhatuClient<Paths, Code>({ ...options, ...more, headers: { ...options.headers, ...more.headers } }),
    raw,
  };
  return client;
}

/** Every POST carries an `Idempotency-Key`: the caller's, or a new one, kept across retries of that call. */
function idempotency(makeKey: () => string): Middleware {
  return {
    onRequest({ request }) {
      if (request.method === 'POST' && !request.headers.has('idempotency-key')) request.headers.set('idempotency-key', makeKey());
      return request;
    },
  };
}

/** Retries what is safe to repeat: any method but PATCH (a POST repeats with its idempotency key). */
function retrying(options: QhatuClientOptions): (request: Request) => Promise<Response> {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const retries = options.retries ?? 2;
  return async (request) => {
    const retriable = request.method !== 'PATCH';
    for (let attempt = 0; ; attempt++) {
      const last = !retriable || attempt >= retries;
      const copy = last ? request : request.clone();
      try {
        const response = await send(copy);
        if (last || !RETRIED_STATUSES.has(response.status)) return response;
        await response.body?.cancel();
        await sleep(delayOf(response, attempt));
      } catch (error) {
        if (last || request.signal.aborted) throw error;
        await sleep(backoff(attempt));
      }
    }
  };
}

const backoff = (attempt: number) => 250 * 2 ** attempt;
function delayOf(response: Response, attempt: number): number {
  const seconds = Number(response.headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, 10_000) : backoff(attempt);
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
