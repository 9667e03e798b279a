import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanKind, trace } from '@opentelemetry/api';
import { Database, definePlugin, REQUEST_ATTRIBUTE, startTracing, stopTracing, TENANT_ATTRIBUTE, traceFields } from '../src/index.js';
import { createTestApp, type TestApp, type TestTenant } from '../src/testing/index.js';
import { notesPlugin } from './fixtures/notes-plugin.js';

// pg, ioredis and fastify are loaded by now, as in an app that starts tracing from its own code.
const exporter = new InMemorySpanExporter();
startTracing({ exporter, immediate: true });

// A provider the app calls with fetch(), as the payment gateways do; it records the headers it gets.
const providerHeaders: IncomingHttpHeaders[] = [];
let provider: Server;
let providerUrl: string;
const caller = definePlugin({
  name: 'caller',
  permissions: [{ name: 'caller.call', description: 'Call the provider' }],
  routes: async (app) => {
    app.post('/provider-call', { config: { auth: ['admin'], permission: 'caller.call' } }, async () => ({ status: (await fetch(providerUrl, { method: 'POST' })).status }));
  },
});

let t: TestApp;
let a: TestTenant;
let address: string;
beforeAll(async () => {
  provider = createServer((req, res) => {
    providerHeaders.push(req.headers);
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/charges`;
  t = await createTestApp({
    plugins: [notesPlugin, caller],
    workers: true,
    env: { PORT: '0', REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', QHATU_QUEUE_PREFIX: `qhatu-test-${randomBytes(4).toString('hex')}` },
  });
  a = await t.createTenant();
  address = await t.app.listen();
});
afterAll(async () => {
  await t?.close();
  await stopTracing();
  await new Promise((resolve) => provider?.close(resolve));
});

async function spansOf(requestId: string, until: (spans: ReadableSpan[]) => boolean): Promise<ReadableSpan[]> {
  const deadline = Date.now() + 5000;
  const mine = () => exporter.getFinishedSpans().filter((s) => attr(s, REQUEST_ATTRIBUTE) === requestId);
  while (Date.now() < deadline && !until(mine())) await new Promise((r) => setTimeout(r, 50));
  return mine();
}

const attr = (span: ReadableSpan, name: string) => span.attributes[name];

describe('tracing', () => {
  it('gives the spans of one request to the exporter: HTTP, fastify, the database and Redis, with its tenant and request id', async () => {
    exporter.reset();
    const requestId = `trace-${randomBytes(6).toString('hex')}`;
    const res = await fetch(`${address}/api/v1/notes`, {
      method: 'POST',
      headers: { ...a.headers(), 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify({ body: 'traced' }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe(requestId);
    // The dispatch job is queued on Redis just after the answer.
    const spans = await spansOf(requestId, (found) => found.some((s) => attr(s, 'db.system.name') === 'redis'));
    const server = spans.find((s) => s.instrumentationScope.name === '@opentelemetry/instrumentation-http' && attr(s, 'http.request.method') === 'POST');
    expect(server, 'the HTTP server span').toBeDefined();
    expect(attr(server!, 'http.route')).toBe('/api/v1/notes');
    expect(attr(server!, TENANT_ATTRIBUTE)).toBe(a.id);
    const traceId = server!.spanContext().traceId;

    const request = spans.find((s) => s.instrumentationScope.name === '@fastify/otel' && s.name.startsWith('request'));
    expect(request, 'the fastify request span').toBeDefined();
    expect(attr(request!, TENANT_ATTRIBUTE)).toBe(a.id);

    const database = spans.filter((s) => attr(s, 'db.system.name') === 'postgresql');
    const insert = database.find((s) => String(attr(s, 'db.query.text')).startsWith('insert into "test_note"'));
    expect(insert, 'the INSERT of the note').toBeDefined();
    expect(attr(insert!, TENANT_ATTRIBUTE)).toBe(a.id);
    // The statement's shape only: no value the client sent, no token hash, no tenant id in the text.
    expect(attr(insert!, 'db.query.text')).toBe('insert into "test_note" ("id", "tenant_id", "body", "status", "created_at") values (?, ?, ?, ?, ?)');
    const texts = JSON.stringify(database.map((s) => s.attributes['db.query.text']));
    expect(texts).not.toContain('traced');
    expect(texts).not.toContain(a.id);
    expect(texts).toContain('from core_access_token');
    expect(database.length).toBeGreaterThanOrEqual(3);

    const redis = spans.filter((s) => attr(s, 'db.system.name') === 'redis');
    expect(redis.length, 'the dispatch job queued on Redis').toBeGreaterThan(0);
    for (const span of [...database, ...redis, request!]) expect(span.spanContext().traceId).toBe(traceId);
    // Every query and Redis command of the trace is this request's (the token lookup comes before its tenant is known).
    const trace = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    const calls = trace.filter((s) => ['postgresql', 'redis'].includes(String(attr(s, 'db.system.name'))));
    expect(calls.length).toBe(database.length + redis.length);
    expect(calls.filter((s) => attr(s, TENANT_ATTRIBUTE) !== a.id).map((s) => s.name)).toEqual([expect.stringMatching(/^pg\.query:SELECT/)]);
    // The workers' polling and the app's timers make no traces of their own: every query and command has a parent.
    await t.app.container.resolve(Database).query('select 1 as outside_any_request');
    const orphans = exporter.getFinishedSpans().filter((s) => attr(s, 'db.system.name') && !s.parentSpanContext);
    expect(orphans.map((s) => s.name)).toEqual([]);
  });

  it('names the server span by the route pattern, and follows a call out to a provider, which gets the trace context', async () => {
    const created = await t.request({ method: 'POST', url: '/api/v1/notes', headers: a.headers(), payload: { body: 'to close' } });
    const id = created.json().data.id as string;
    const closing = `trace-${randomBytes(6).toString('hex')}`;
    const closed = await fetch(`${address}/api/v1/notes/${id}/close`, { method: 'POST', headers: { ...a.headers(), 'x-request-id': closing } });
    expect(closed.status).toBe(200);
    const server = (await spansOf(closing, (found) => found.some((s) => s.instrumentationScope.name === '@opentelemetry/instrumentation-http')))
      .find((s) => s.instrumentationScope.name === '@opentelemetry/instrumentation-http');
    expect(server?.name).toBe('POST /api/v1/notes/:id/close');
    expect(attr(server!, 'http.route')).toBe('/api/v1/notes/:id/close');

    const calling = `trace-${randomBytes(6).toString('hex')}`;
    const res = await fetch(`${address}/api/v1/provider-call`, { method: 'POST', headers: { ...a.headers(), 'x-request-id': calling } });
    expect(await res.json()).toEqual({ status: 204 });
    const spans = await spansOf(calling, (found) => found.some((s) => s.instrumentationScope.name === '@opentelemetry/instrumentation-undici'));
    const outgoing = spans.find((s) => s.instrumentationScope.name === '@opentelemetry/instrumentation-undici');
    expect(outgoing, 'the fetch() span').toBeDefined();
    expect(attr(outgoing!, 'url.full')).toBe(providerUrl);
    expect(attr(outgoing!, TENANT_ATTRIBUTE)).toBe(a.id);
    const traceparent = String(providerHeaders.at(-1)?.traceparent);
    expect(traceparent).toMatch(new RegExp(`^00-${outgoing!.spanContext().traceId}-${outgoing!.spanContext().spanId}-0[01]$`));
  });

  it('gives log lines the trace and span they were written in', () => {
    expect(traceFields()).toEqual({});
    trace.getTracer('test').startActiveSpan('work', (span) => {
      expect(traceFields()).toEqual({ trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId });
      span.end();
    });
  });

  it('runs each job in a span of its own, in its tenant, linked to the request that queued it', async () => {
    const queuing = `trace-${randomBytes(6).toString('hex')}`;
    const res = await fetch(`${address}/api/v1/notes/echo`, { method: 'POST', headers: { ...a.headers(), 'x-request-id': queuing } });
    expect(res.status).toBeLessThan(300);
    const [server] = (await spansOf(queuing, (found) => found.some((s) => s.instrumentationScope.name === '@opentelemetry/instrumentation-http')))
      .filter((s) => s.instrumentationScope.name === '@opentelemetry/instrumentation-http');
    const deadline = Date.now() + 10_000;
    const job = () => exporter.getFinishedSpans().find((s) => s.name === 'job notes.echo' && s.links.some((l) => l.context.traceId === server.spanContext().traceId));
    while (Date.now() < deadline && !job()) await new Promise((r) => setTimeout(r, 50));
    const span = job();
    expect(span, 'the job span').toBeDefined();
    expect(span!.kind).toBe(SpanKind.CONSUMER);
    expect(span!.parentSpanContext).toBeUndefined();
    expect(span!.spanContext().traceId).not.toBe(server.spanContext().traceId);
    expect(span!.attributes).toMatchObject({ [TENANT_ATTRIBUTE]: a.id, 'qhatu.job.name': 'notes.echo', 'qhatu.job.attempt': 1, 'messaging.system': 'bullmq' });
  });
});
