import { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span as SdkSpan, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { FastifyInstance, FastifyPluginCallback } from 'fastify';
import { TenantContext } from '../context.js';
import { withoutLiterals } from './sql-text.js';

// Loaded only when tracing starts: a process that does not trace pays nothing for the SDK.
const load = createRequire(import.meta.url);

export const TENANT_ATTRIBUTE = 'qhatu.tenant_id';
/** Query parameters whose values a span never shows (besides OpenTelemetry's own list of signatures). */
const REDACTED_QUERY_PARAMS = ['sig', 'Signature', 'signature', 'AWSAccessKeyId', 'X-Goog-Signature', 'token', 'code', 'key', 'secret', 'password', 'email', 'q', 'expires'];
export const REQUEST_ATTRIBUTE = 'qhatu.request_id';

/** Every span started inside a request or job carries its tenant and request id (the `reqId` of its log lines). */
class ScopeAttributes implements SpanProcessor {
  onStart(span: SdkSpan, _parent: Context): void {
    const scope = TenantContext.current();
    if (scope?.requestId) span.setAttribute(REQUEST_ATTRIBUTE, scope.requestId);
    if (scope?.tenantId) span.setAttribute(TENANT_ATTRIBUTE, scope.tenantId);
  }
  onEnd(_span: ReadableSpan): void {}
  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}

interface Running {
  sdk: { shutdown(): Promise<void> };
  flush(): Promise<void>;
  fastify: { plugin(): FastifyPluginCallback };
}

let running: Running | undefined;
// The server span of each incoming request, to name its tenant once auth has found it.
const serverSpans = new WeakMap<IncomingMessage, Span>();

export interface TracingOptions {
  /** Where spans go; default: OTLP over HTTP (protobuf) to `url`, else as the `OTEL_EXPORTER_OTLP_*` variables say. */
  exporter?: SpanExporter;
  /** The OTLP traces URL (`…/v1/traces`) of the default exporter. */
  url?: string;
  /** Send each span as it ends instead of in batches (tests). */
  immediate?: boolean;
}

/**
 * Starts OpenTelemetry tracing for this process (once; later calls do nothing): HTTP in and out,
 * `fetch`, PostgreSQL (`pg`, under MikroORM and the read path), Redis (`ioredis`) and fastify
 * (`@fastify/otel`, which each app registers on its server). Patches modules even when they were
 * loaded before.
 */
export function startTracing(options: TracingOptions = {}): void {
  if (running) return;
  const { NodeSDK } = load('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { BatchSpanProcessor, SimpleSpanProcessor } = load('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const { HttpInstrumentation } = load('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { PgInstrumentation } = load('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { IORedisInstrumentation } = load('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  const { UndiciInstrumentation } = load('@opentelemetry/instrumentation-undici') as typeof import('@opentelemetry/instrumentation-undici');
  const { FastifyOtelInstrumentation } = load('@fastify/otel') as typeof import('@fastify/otel');

  let exporter = options.exporter;
  if (!exporter) {
    const { OTLPTraceExporter } = load('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto');
    exporter = new OTLPTraceExporter(options.url ? { url: options.url } : {});
  }
  const exporting = options.immediate ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter);
  const fastify = new FastifyOtelInstrumentation();
  const sdk = new NodeSDK({
    ...(process.env.OTEL_SERVICE_NAME ? {} : { serviceName: 'qhatu' }),
    spanProcessors: [new ScopeAttributes(), exporting],
    instrumentations: [
      new HttpInstrumentation({
        requestHook: (span, request) => {
          if (request instanceof IncomingMessage) serverSpans.set(request, span);
        },
        redactedQueryParams: REDACTED_QUERY_PARAMS,
      }),
      // The statement's shape, never its values (parameters, or literals the ORM wrote into the text).
      // Only inside a request or a job: the queue's polling and the migrations would drown them.
      new PgInstrumentation({
        requireParentSpan: true,
        enhancedDatabaseReporting: false,
        requestHook: (span, { query }) => {
          if (query.text) span.setAttribute('db.query.text', withoutLiterals(query.text));
        },
      }),
      new IORedisInstrumentation({ requireParentSpan: true }),
      // fetch(), which the payment gateways call their providers with.
      new UndiciInstrumentation(),
      fastify,
    ],
  });
  sdk.start();
  // A module loaded before the SDK started is patched on its next require: ask for each now.
  for (const id of ['http', 'https', 'pg', 'ioredis']) load(id);
  running = { sdk, fastify, flush: () => exporting.forceFlush() };
}

/** Whether this process traces. */
export function tracing(): boolean {
  return Boolean(running);
}

/** The trace and span of the current context, for log lines (a pino mixin); nothing when not tracing. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  if (!running) return {};
  const span = trace.getActiveSpan()?.spanContext();
  return span ? { trace_id: span.traceId, span_id: span.spanId } : {};
}

/** The trace context to queue with a job, so that its run links back to what queued it; undefined when not tracing. */
export function jobTraceContext(): Record<string, string> | undefined {
  if (!running) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

/**
 * Runs a job inside a span of its own (`job <name>`, a root linked to the trace that queued it),
 * so that its queries and calls form one trace; without tracing, just runs it.
 */
export function traceJob<T>(job: { name: string; id?: string; attempt: number; tenantId?: string; queuedBy?: Record<string, string> }, run: () => Promise<T>): Promise<T> {
  if (!running) return run();
  const queuedBy = job.queuedBy && trace.getSpanContext(propagation.extract(ROOT_CONTEXT, job.queuedBy));
  const attributes = {
    'messaging.system': 'bullmq',
    'messaging.operation.type': 'process',
    ...(job.id ? { 'messaging.message.id': job.id } : {}),
    'qhatu.job.name': job.name,
    'qhatu.job.attempt': job.attempt,
    ...(job.tenantId ? { [TENANT_ATTRIBUTE]: job.tenantId } : {}),
  };
  return trace.getTracer('qhatu').startActiveSpan(
    `job ${job.name}`,
    { kind: SpanKind.CONSUMER, root: true, attributes, links: queuedBy ? [{ context: queuedBy }] : [] },
    async (span) => {
      try {
        return await run();
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** Sends what is buffered and stops tracing in this process. */
export async function stopTracing(): Promise<void> {
  const stopping = running;
  running = undefined;
  await stopping?.sdk.shutdown();
}

/** Sends the spans still buffered (an app closing, a process about to exit). */
export async function flushTracing(): Promise<void> {
  await running?.flush();
}

/**
 * Traces an app's server: `@fastify/otel` (registered before any route so that it sees them all),
 * and, once each request is answered, its tenant and request id on its request and server spans.
 */
export async function traceServer(http: FastifyInstance): Promise<void> {
  if (!running) return;
  await http.register(running.fastify.plugin());
  http.addHook('onSend', (request, _reply, payload, done) => {
    const tenantId = TenantContext.current()?.tenantId;
    const spans = [serverSpans.get(request.raw), request.opentelemetry?.().span ?? trace.getActiveSpan()];
    for (const span of spans) {
      if (!span) continue;
      span.setAttribute(REQUEST_ATTRIBUTE, request.id);
      if (tenantId) span.setAttribute(TENANT_ATTRIBUTE, tenantId);
    }
    done(null, payload);
  });
}
