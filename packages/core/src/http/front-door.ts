import { randomUUID } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { AccessTokens } from '../auth/tokens.js';
import type { ReadCache } from '../cache/read-cache.js';
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
  tenantId: string;
  /** The token cache's key of the caller's token, and the principal it held then. */
  tokenKey: string;
  principal: Principal;
  /** The read cache's slot the answer is kept in. */
  topic: string;
  key: string;
  /** The route's pattern, for the logs and metrics. */
  route: string;
  /** The headers the route set (cache-control, vary, content-language and the like), ETag and length aside. */
  headers: OutgoingHttpHeaders;
  /** Whether the route sends the answer's ETag (and a 304 for If-None-Match holding it). */
  tagged: boolean;
}

/** Requests remembered at most; the oldest goes first. */
const REMEMBERED_MAX = 20_000;

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

/** What an answer depends on: method and URL (the query in it), store, caller, languages, and a POST's body. */
function requestKey(req: IncomingMessage, body: Buffer | undefined): string {
  const h = req.headers;
  const base = `${req.method} ${req.url}\u0000${h['x-tenant-id']}\u0000${h.authorization}\u0000${h['accept-language'] ?? ''}\u0000${h['x-market'] ?? ''}`;
  return body ? `${base}\u0000${body.toString('latin1')}` : base;
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
  private readonly remembered = new Map<string, Remembered>();
  /** Header sets are few (a route's, per language): each kept once, whatever the number of requests remembered. */
  private readonly headerSets = new Map<string, OutgoingHttpHeaders>();
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
    return this.remembered.size;
  }

  /**
   * Called by a route that answered a storefront caller from the read cache's slot `key` of
   * `topic`, once its headers are set: the same request will be answered at the door.
   */
  remember(request: FastifyRequest, reply: FastifyReply, principal: Principal, topic: string, key: string): void {
    if (!this.open || !principal.tenantId) return;
    const raw = request.raw as ReadRequest;
    // A POST is remembered only when the door read its body (its text is part of the request).
    if (request.method !== 'GET' && !(request.method === 'POST' && raw[READ_BODY])) return;
    // The route authenticated it: the header reads "Bearer <token>".
    const token = bearerToken(request);
    if (!token) return;
    const headers = { ...reply.getHeaders() } as OutgoingHttpHeaders;
    const tagged = headers.etag !== undefined;
    for (const name of ['etag', 'content-length', 'x-request-id']) delete headers[name];
    const text = JSON.stringify(headers);
    let shared = this.headerSets.get(text);
    if (!shared) {
      if (this.headerSets.size >= HEADER_SETS_MAX) this.headerSets.clear();
      shared = headers;
      this.headerSets.set(text, shared);
    }
    const id = requestKey(raw, raw[READ_BODY]);
    this.remembered.delete(id);
    if (this.remembered.size >= REMEMBERED_MAX) this.remembered.delete(this.remembered.keys().next().value!);
    this.remembered.set(id, {
      tenantId: principal.tenantId,
      tokenKey: this.tokens.cacheKey(token, principal.tenantId),
      principal,
      topic,
      key,
      route: request.routeOptions.url ?? request.url,
      headers: shared,
      tagged,
    });
  }

  /** Answers `req` when it is a remembered storefront read that still holds, else hands it to `next` (the framework). */
  serve(req: IncomingMessage, res: ServerResponse, next: Handler): void {
    if (!this.open) return next(req, res);
    if (req.method === 'GET') {
      const bodiless = req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined;
      if (!bodiless || this.remembered.size === 0 || !this.answer(req, res, undefined)) next(req, res);
      return;
    }
    const length = Number(req.headers['content-length']);
    if (req.method !== 'POST' || req.url !== '/graphql' || !(length > 0 && length <= BODY_MAX) || req.headers['transfer-encoding'] !== undefined) return next(req, res);
    // A query: its body is read here, and handed on with the request when the door does not answer it.
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
      if (received < length) return;
      // The whole body is in (most often with the headers, in one chunk): answered now, not a tick
      // later at the stream's end. A body that never comes whole ends in 'error', never in 'end'.
      req.off('data', onData);
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
      (req as ReadRequest)[READ_BODY] = body;
      if (!this.answer(req, res, body)) req.once('end', () => next(req, res));
    };
    req.on('data', onData);
    req.once('error', () => res.destroy());
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
    const id = requestKey(req, body);
    const known = this.remembered.get(id);
    if (!known) return false;
    const answer = this.tokens.stillHolds(known.tokenKey, known.principal) ? this.cache.peek(known.tenantId, known.topic, known.key) : undefined;
    if (!answer) {
      this.remembered.delete(id);
      return false;
    }
    const start = process.hrtime.bigint();
    const requestId = requestIdOf(req);
    if (this.logsRequests) this.logger.info({ reqId: requestId, route: known.route, req: this.described(req) }, 'incoming request');
    const notModified = known.tagged && matchesEtag(req.headers['if-none-match'], answer.etag);
    const headers: OutgoingHttpHeaders = { 'x-request-id': requestId, ...known.headers };
    if (known.tagged) headers.etag = answer.etag;
    if (notModified) {
      delete headers['content-type'];
      res.writeHead(304, headers);
      res.end();
    } else {
      const payload = answer.bytes ?? answer.body;
      headers['content-length'] = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
      res.writeHead(200, headers);
      res.end(payload);
    }
    this.answered += 1;
    const status = notModified ? 304 : 200;
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
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
