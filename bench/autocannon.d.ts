// autocannon 9 ships no type declarations and @types/autocannon is not installed; this covers only
// the part of its programmatic API that the benchmark uses.
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      /** Called before every send; returns the request to send. */
      setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
      onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, unknown>) => void;
    }

    interface Options {
      url: string;
      title?: string;
      connections?: number;
      /** Seconds. */
      duration?: number;
      /** Seconds per request before it counts as a timeout. */
      timeout?: number;
      headers?: Record<string, string>;
      requests?: Request[];
      /** A run before the measured one whose numbers are reported apart (in `result.warmup`). */
      warmup?: { connections?: number; duration?: number };
    }

    /** hdr-histogram-percentiles-obj; latency in milliseconds, requests and throughput per second. */
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p90: number;
      p99: number;
    }

    interface Result {
      title?: string;
      url: string;
      duration: number;
      start: Date;
      finish: Date;
      connections: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      '2xx': number;
      '4xx': number;
      '5xx': number;
      statusCodeStats: Record<string, { count: number }>;
      latency: Histogram;
      requests: Histogram & { sent: number };
      throughput: Histogram;
      warmup?: Result;
    }

    interface Instance extends EventEmitter, PromiseLike<Result> {}
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;
  export = autocannon;
}
