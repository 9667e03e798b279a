import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../src/testing/index.js';
import { notesPlugin } from './fixtures/notes-plugin.js';

// An OTLP/HTTP receiver: what the exporter posts, as it arrives.
const received: Array<{ url: string; type: string; body: Buffer }> = [];
let collector: Server;
let t: TestApp;
beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ url: req.url ?? '', type: String(req.headers['content-type']), body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  // The endpoint comes from the app's settings; the SDK reads the other OTEL_* variables from the process.
  process.env.OTEL_SERVICE_NAME = 'qhatu-otlp-test';
  t = await createTestApp({ plugins: [notesPlugin], env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } });
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => collector?.close(resolve));
});

describe('tracing by OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('sends the spans of a request to the OTLP endpoint, with its tenant and request id, once the app closes at the latest', async () => {
    const tenant = await t.createTenant();
    const res = await t.request({ method: 'POST', url: '/api/v1/notes', headers: { ...tenant.headers(), 'x-request-id': 'otlp-request-1' }, payload: { body: 'exported' } });
    expect(res.statusCode).toBe(201);
    await t.close();
    const traces = received.filter((r) => r.url === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    expect(traces[0].type).toBe('application/x-protobuf');
    // Protocol buffers keep strings as they are: the resource, the attributes and the statements can be found in the bytes.
    const bytes = Buffer.concat(traces.map((r) => r.body)).toString('latin1');
    expect(bytes).toContain('qhatu-otlp-test');
    expect(bytes).toContain('otlp-request-1');
    expect(bytes).toContain(tenant.id);
    expect(bytes).toContain('insert into "test_note"');
    expect(bytes).not.toContain('exported');
  });
});
