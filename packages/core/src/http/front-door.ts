import { randomUUID } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { AccessTokens } from '../auth/tokens.js';
import type { CachePlace, ReadCache } from '../cache/read-cache.js';
import type { QhatuConfig } from '../config.js';
import type { Principal } from '../context.js';
import type { Metrics } from '../observability/metrics.js';
import { bearerToken } from './auth.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Storefront answers given again before the framework (`remember` one once it is sent from the read cache). */
    frontDoor: FrontDoor;
  }
}

/** A storefront answer the framework gave, and what it takes to give it again. */
interface Remembered {
  /** What the request must hold besides its store, and URL or GraphQL body, to be this one: the headers the answer depends on. */
  authorization: string;
  language: string;
  market: string;
  /** Its store's shelves (and the store's key in `stores`), the shelf it is on and its key there, to take it off. */
  store: StoreShelves;
  storeKey: string;
  shelf: Map<string, Remembered[]>;
  shelfKey: string;
  tenantId: string;
  /** The token cache's key of the caller's token, and the principal it held then. */
  tokenKey: string;
  principal: Principal;
  /** Where the read cache keeps the answer. */
  place: CachePlace;
  /** The route's pattern, for the logs and metrics. */
  route: string;
  /**
   * The answer's headers as `writeHead` takes them, flat: the request id's value first, the route's
   * (cache-control, vary, content-language and the like), then the ETag's and the length's values
   * last (when `tagged`); the three filled in per answer on a copy.
   */
  head: (string | number)[];
  /** The same for a 304: no content type, no length. */
  notModifiedHead: (string | number)[];
  /** Whether the route sends the answer's ETag (and a 304 for If-None-Match holding it). */
  tagged: boolean;
}

/** Requests remembered at most; the oldest goes first. */
const REMEMBERED_MAX = 20_000;

/**
 * What the remembered requests' URLs and GraphQL bodies may hold together, in characters; past it
 * the oldest go first. A body may be 64 KB and a URL 16 KB: without it, callers sending distinct
 * large queries (spaces added, say) that the cache answers would hold 20,000 of them.
 */
export const REMEMBERED_KEY_CHARS_MAX = 8 * 2 ** 20;

/** Callers remembered for one URL (or body) of one store: tokens, languages and markets together. */
const CALLERS_MAX = 16;

/** Distinct header sets kept; past it the set starts again (remembered answers keep theirs). */
const HEADER_SETS_MAX = 1_000;

/** GraphQL queries are POSTed: bodies up to this size are read at the door, larger ones go to the framework unread. */
const BODY_MAX = 64 * 1024;

const REQUEST_ID = /^[\w.-]{1,128}$/;

/** A request's id: the caller's `X-Request-ID` when it is a sensible one, else a new UUID (fastify's `genReqId` and the door alike). */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** The body the door read of a request it then handed on, for the framework to parse (see `bodyOf`). */
const READ_BODY = Symbol('qhatu.front-door.body');
type ReadRequest = IncomingMessage & { [READ_BODY]?: Buffer };

/** A store's remembered requests: GETs by URL, GraphQL POSTs by body, each with the few callers it was remembered for. */
interface StoreShelves {
  gets: Map<string, Remembered[]>;
  posts: Map<string, Remembered[]>;
}

/** Whether `req` holds the headers `known` was remembered with (its store and its URL or body found it). */
function sameCaller(known: Remembered, req: IncomingMessage): boolean {
  const h = req.headers;
  return known.authorization === h.authorization && known.language === (h['accept-language'] ?? '') && known.market === (h['x-market'] ?? '');
}

/** The store a request names (`X-Tenant-ID`), as the door files it. */
const storeKeyOf = (req: IncomingMessage) => (req.headers['x-tenant-id'] as string | undefined) ?? '';

/** A remembered answer's headers, flat, as `writeHead` takes them (see `Remembered.head`). */
function flatHead(headers: OutgoingHttpHeaders, tagged: boolean, notModified: boolean): (string | number)[] {
  const head: (string | number)[] = ['x-request-id', ''];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || (notModified && name === 'content-type')) continue;
    if (Array.isArray(value)) for (const one of value) head.push(name, one);
    else head.push(name, value);
  }
  if (tagged) head.push('etag', '');
  if (!notModified) head.push('content-length', 0);
  return head;
}

/** Whether `If-None-Match` holds `etag` (weak or strong, or `*`): the answer is then a 304. */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Storefront reads answered before the framework sees them (decision 0094). When a route answers a
 * storefront caller from the read cache, it `remember`s the request (method, URL, store, token,
 * languages and, for a GraphQL POST, the body) with the slot and the headers it sent. The same
 * request again is answered here, from the raw socket's request, when all still holds as the route
 * would find it: the caller's token lookup is the one cached then (not revoked, changed, expired or
 * stale, the store active), and the slot still holds an answer of the current generation. Anything
 * else (a miss, a header the answer depends on that differs) goes through the framework as before,
 * which remembers it again.
 *
 * The answer is the route's: the same body, ETag (and 304), headers and request id; the same log
 * lines (`incoming request`, `request completed`) and request metrics. Off while tracing is on (a
 * span per request is the framework's) and with the read cache off.
 */
export class FrontDoor {
  /**
   * Remembered requests by store (`X-Tenant-ID`), then by URL (GETs) or body (GraphQL POSTs), each
   * with the few callers it was remembered for: the look-up hashes strings the request already has
   * and compares a few headers, rather than building and hashing one long key per request; the same
   * URL read in ten thousand stores is ten thousand shelves, not one long list.
   */
  private readonly stores = new Map<string, StoreShelves>();
  /** Every remembered request, oldest first. */
  private readonly order = new Set<Remembered>();
  /** The characters of the remembered requests' URLs and bodies (see REMEMBERED_KEY_CHARS_MAX). */
  private keyChars = 0;
  /** Header sets are few (a route's, per language): each kept once, whatever the number of requests remembered. */
  private readonly headerSets = new Map<string, { head: (string | number)[]; notModifiedHead: (string | number)[] }>();
  private readonly trust: ((address: string, hop: number) => boolean) | undefined;
  private readonly logsRequests: boolean;
  /** Answers given at the door since the start. */
  answered = 0;

  constructor(
    private readonly cache: ReadCache,
    private readonly tokens: AccessTokens,
    private readonly metrics: Metrics,
    private readonly logger: Logger,
    config: Pick<QhatuConfig, 'trustProxy'>,
    /** False when tracing or the read cache is off: every request goes through the framework. */
    readonly open: boolean,
  ) {
    const proxies = config.trustProxy;
    this.trust = proxies === false ? undefined : typeof proxies === 'number' ? (_address, hop) => hop < proxies : proxyAddr.compile(proxies);
    this.logsRequests = logger.isLevelEnabled('info');
  }

  /** Requests remembered now. */
  get size(): number {
    return this.order.size;
  }

  /** The characters of the URLs and bodies they are remembered by. */
  get rememberedChars(): number {
    return this.keyChars;
  }

  /**
   * Called by a route that answered a storefront caller from the read cache's slot `key` of
   * `topic`, once its headers are set: the same request will be answered at the door.
   */
  remember(request: FastifyRequest, reply: FastifyReply, principal: Principal, topic: string, key: string): void {
    if (!this.open || !principal.tenantId) return;
    const raw = request.raw as ReadRequest;
    // A POST is remembered only when the door read its body (its text is part of the request).
    const body = raw[READ_BODY];
    if (request.method !== 'GET' && !(request.method === 'POST' && body)) return;
    // The route authenticated it: the header reads "Bearer <token>".
    const token = bearerToken(request);
    const authorization = raw.headers.authorization;
    if (!token || authorization === undefined) return;
    const headers = { ...reply.getHeaders() } as OutgoingHttpHeaders;
    const tagged = headers.etag !== undefined;
    for (const name of ['etag', 'content-length', 'x-request-id']) delete headers[name];
    const text = `${tagged}${JSON.stringify(headers)}`;
    let shared = this.headerSets.get(text);
    if (!shared) {
      if (this.headerSets.size >= HEADER_SETS_MAX) this.headerSets.clear();
      shared = { head: flatHead(headers, tagged, false), notModifiedHead: flatHead(headers, tagged, true) };
      this.headerSets.set(text, shared);
    }
    const storeKey = storeKeyOf(raw);
    let store = this.stores.get(storeKey);
    if (!store) {
      store = { gets: new Map(), posts: new Map() };
      this.stores.set(storeKey, store);
    }
    const shelf = body ? store.posts : store.gets;
    const shelfKey = body ? body.toString('latin1') : raw.url!;
    const h = raw.headers;
    const remembered: Remembered = {
      authorization,
      language: h['accept-language'] ?? '',
      market: (h['x-market'] as string | undefined) ?? '',
      store,
      storeKey,
      shelf,
      shelfKey,
      tenantId: principal.tenantId,
      tokenKey: this.tokens.cacheKey(token, principal.tenantId),
      principal,
      place: this.cache.locate(principal.tenantId, topic, key),
      route: request.routeOptions.url ?? request.url,
      head: shared.head,
      notModifiedHead: shared.notModifiedHead,
      tagged,
    };
    const callers = shelf.get(shelfKey);
    const same = callers?.find((known) => sameCaller(known, raw));
    if (same) this.forget(same);
    while (this.order.size > 0 && (this.order.size >= REMEMBERED_MAX || this.keyChars + shelfKey.length > REMEMBERED_KEY_CHARS_MAX)) {
      this.forget(this.order.values().next().value!);
    }
    const list = shelf.get(shelfKey);
    // A few callers a URL: past that (Accept-Language spelt a thousand ways, say) the oldest of them goes, so no look-up walks a long list.
    if (list && list.length >= CALLERS_MAX) this.forget(list[0]!);
    if (list) list.push(remembered);
    else shelf.set(shelfKey, [remembered]);
    // Making room may have taken the store's last shelf away.
    if (this.stores.get(storeKey) !== store) this.stores.set(storeKey, store);
    this.order.add(remembered);
    this.keyChars += shelfKey.length;
  }

  private forget(known: Remembered): void {
    if (!this.order.delete(known)) return;
    this.keyChars -= known.shelfKey.length;
    const callers = known.shelf.get(known.shelfKey);
    if (!callers) return;
    const at = callers.indexOf(known);
    if (at >= 0) callers.splice(at, 1);
    if (callers.length > 0) return;
    known.shelf.delete(known.shelfKey);
    if (known.store.gets.size === 0 && known.store.posts.size === 0 && this.stores.get(known.storeKey) === known.store) this.stores.delete(known.storeKey);
  }

  /** Answers `req` when it is a remembered storefront read that still holds, else hands it to `next` (the framework). */
  serve(req: IncomingMessage, res: ServerResponse, next: Handler): void {
    if (!this.open) return next(req, res);
    if (req.method === 'GET') {
      const bodiless = req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined;
      if (!bodiless || this.stores.size === 0 || !this.answer(req, res, undefined)) next(req, res);
      return;
    }
    const length = Number(req.headers['content-length']);
    if (req.method !== 'POST' || req.url !== '/graphql' || !(length > 0 && length <= BODY_MAX) || req.headers['transfer-encoding'] !== undefined) return next(req, res);
    // A query: its body is read here, and handed on with the request when the door does not answer it.
    // Most often it came with the headers, in the packet being parsed: once the parser is done with
    // that packet (a microtask later) all its bytes are in the request's buffer and taken in one
    // read, without the stream's ticks of a `data` listener. Otherwise it is read as it comes.
    queueMicrotask(() => {
      const whole = req.readableLength === length ? (req.read() as Buffer | null) : null;
      if (whole) this.take(req, res, next, whole);
      else this.readBody(req, res, next, length);
    });
  }

  /** Reads a body that comes in pieces, then `take`s it. A body that never comes whole ends in 'error', never in 'end'. */
  private readBody(req: IncomingMessage, res: ServerResponse, next: Handler, length: number): void {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
      if (received < length) return;
      // The whole body is in: answered now, not a tick later at the stream's end.
      req.off('data', onData);
      this.take(req, res, next, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    };
    req.on('data', onData);
    req.once('error', () => res.destroy());
  }

  /** The whole body of a GraphQL POST: answered from memory, or handed on with the request once its stream ends. */
  private take(req: IncomingMessage, res: ServerResponse, next: Handler, body: Buffer): void {
    (req as ReadRequest)[READ_BODY] = body;
    if (this.answer(req, res, body)) return;
    // Handed on once its stream ends (taken in one read, it is paused until resumed).
    req.once('end', () => next(req, res));
    req.resume();
  }

  /**
   * The body the door read of a request it handed on, as a stream for the framework's body parser
   * (a `preParsing` hook returns it); undefined when the door did not read it.
   */
  bodyOf(req: IncomingMessage): Readable | undefined {
    const body = (req as ReadRequest)[READ_BODY];
    return body ? Readable.from([body], { objectMode: false }) : undefined;
  }

  private answer(req: IncomingMessage, res: ServerResponse, body: Buffer | undefined): boolean {
    const store = this.stores.get(storeKeyOf(req));
    if (!store) return false;
    const callers = body ? store.posts.get(body.toString('latin1')) : store.gets.get(req.url!);
    if (!callers) return false;
    let known: Remembered | undefined;
    for (const one of callers) {
      if (sameCaller(one, req)) {
        known = one;
        break;
      }
    }
    if (!known) return false;
    const answer = this.tokens.stillHolds(known.tokenKey, known.principal) ? this.cache.peekAt(known.place) : undefined;
    if (!answer) {
      this.forget(known);
      return false;
    }
    const start = performance.now();
    const requestId = requestIdOf(req);
    if (this.logsRequests) this.logger.info({ reqId: requestId, route: known.route, req: this.described(req) }, 'incoming request');
    const notModified = known.tagged && matchesEtag(req.headers['if-none-match'], answer.etag);
    // The shared template, copied, with this answer's request id, ETag and length filled in.
    if (notModified) {
      const head = known.notModifiedHead.slice();
      head[1] = requestId;
      head[head.length - 1] = answer.etag;
      res.writeHead(304, head);
      res.end();
    } else {
      const payload = answer.bytes ?? answer.body;
      const head = known.head.slice();
      head[1] = requestId;
      if (known.tagged) head[head.length - 3] = answer.etag;
      head[head.length - 1] = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
      res.writeHead(200, head);
      res.end(payload);
    }
    this.answered += 1;
    const status = notModified ? 304 : 200;
    const ms = performance.now() - start;
    this.metrics.observeRequest(req.method!, known.route, status, ms / 1000);
    if (this.logsRequests) {
      this.logger.info({ reqId: requestId, route: known.route, tenant_id: known.tenantId, res: { statusCode: status }, responseTime: ms }, 'request completed');
    }
    return true;
  }

  /** The request as fastify's log lines describe it (the client's address behind the trusted proxies). */
  private described(req: IncomingMessage) {
    const socket = req.socket;
    const trusted = this.trust;
    const forwardedHost = req.headers['x-forwarded-host'];
    const host = trusted && forwardedHost && trusted(socket.remoteAddress ?? '', 0) ? String(forwardedHost).split(',').at(-1)!.trim() : (req.headers.host ?? '');
    return {
      method: req.method,
      url: req.url,
      version: req.headers['accept-version'],
      host,
      remoteAddress: trusted ? proxyAddr(req, trusted) : socket.remoteAddress,
      remotePort: socket.remotePort,
    };
  }
}
