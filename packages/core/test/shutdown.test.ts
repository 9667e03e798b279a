import { describe, expect, it } from 'vitest';
import { createTestApp } from '../src/testing/index.js';
import { notesPlugin } from './fixtures/notes-plugin.js';

describe('graceful shutdown', () => {
  it('lets requests in flight finish before the database closes', async () => {
    const t = await createTestApp({ plugins: [notesPlugin], env: { PORT: '0' } });
    const tenant = await t.createTenant();
    await t.app.listen();
    const { port } = t.app.http.server.address() as { port: number };
    let received = 0;
    t.app.http.server.on('request', () => (received += 1));
    const inFlight = Array.from({ length: 60 }, (_, i) =>
      fetch(`http://127.0.0.1:${port}/api/v1/notes`, {
        method: 'POST',
        headers: { ...tenant.headers(), 'content-type': 'application/json', connection: 'close' },
        body: JSON.stringify({ body: `n${i}` }),
      }).then((r) => r.status, (e: Error) => e.message),
    );
    while (received < 10) await new Promise((r) => setTimeout(r, 1));
    await t.close();
    const statuses = await Promise.all(inFlight);
    // Each request either completed or was turned away before it started; none failed midway.
    for (const status of statuses) expect([201, 503, 'fetch failed']).toContain(status);
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThan(0);
  });
});
