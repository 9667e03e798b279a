import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A provider double, started: where its gateway is pointed, and how it is stopped. */
export interface ProviderDouble {
  url: string;
  close(): Promise<void>;
}

/** A request a provider double received, as tests inspect it (a double may record more). */
export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  json: Record<string, unknown>;
}

/**
 * A provider's API on 127.0.0.1, as a gateway's double serves it: `handle` answers each request.
 * Tests can have it lose or hold back answers after the work is done, or drop requests before.
 */
export abstract class HttpDouble implements ProviderDouble {
  url = '';
  private server?: Server;

  /** Listens on a free port, `url` its address. */
  async start(): Promise<this> {
    const server = createServer((req, res) => {
      if (this.dropping > 0 && this.drops(req)) {
        // Cut on the way: the provider never sees the request.
        this.dropping--;
        req.socket.destroy();
        return;
      }
      if (this.holding > 0 && this.holds(req)) {
        this.holding--;
        this.holdAnswer(res);
      } else if (this.lose > 0 && this.loses(req)) {
        // Done, but the answer never arrives: the connection drops instead.
        this.lose--;
        const cut = () => {
          req.socket.destroy();
          return res;
        };
        res.writeHead = cut as never;
        res.end = cut as never;
      }
      void this.handle(req, res);
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  private lose = 0;
  private loses: (req: IncomingMessage) => boolean = () => true;

  /**
   * The next `count` requests that `which` picks are carried out but their answers are lost (the
   * connection drops after the work is done), as when a provider times out after charging.
   */
  loseAnswers(count: number, which: (req: IncomingMessage) => boolean = () => true): void {
    this.lose = count;
    this.loses = which;
  }

  private dropping = 0;
  private drops: (req: IncomingMessage) => boolean = () => true;

  /** The next `count` requests that `which` picks never reach the provider: the connection is cut before anything is done. */
  dropRequests(count: number, which: (req: IncomingMessage) => boolean = () => true): void {
    this.dropping = count;
    this.drops = which;
  }

  private holding = 0;
  private holds: (req: IncomingMessage) => boolean = () => true;
  private readonly held: Array<() => void> = [];

  /**
   * The next `count` requests that `which` picks are carried out, but their answers are held back
   * (the connection stays open, nothing comes), as from a provider that times out after doing the
   * work, until `releaseAnswers`.
   */
  holdAnswers(count: number, which: (req: IncomingMessage) => boolean = () => true): void {
    this.holding = count;
    this.holds = which;
  }

  /** Sends the answers held back, to whoever still listens. */
  releaseAnswers(): void {
    for (const send of this.held.splice(0)) send();
  }

  private holdAnswer(res: ServerResponse): void {
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    let head: unknown[] = [];
    res.writeHead = ((...args: unknown[]) => ((head = args), res)) as never;
    res.end = ((...args: unknown[]) => {
      this.held.push(() => {
        if (res.destroyed) return;
        if (head.length) writeHead(...head);
        end(...args);
      });
      return res;
    }) as never;
  }

  /** Stops listening, cutting any connection still open. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  protected abstract handle(req: IncomingMessage, res: ServerResponse): Promise<void>;

  /** What tests see of a request: its method, path, credentials, content type and JSON body. */
  protected recordOf(req: IncomingMessage, path: string, json: Record<string, unknown>): RecordedRequest {
    return { method: req.method ?? '', path, authorization: req.headers.authorization, contentType: req.headers['content-type'], json };
  }

  /** The request's whole body as text. */
  protected async body(req: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  /** A JSON answer, as providers send theirs. */
  protected json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  }
}
