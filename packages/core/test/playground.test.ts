import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestTenant } from '../src/testing/index.js';
import { notesPlugin } from './fixtures/notes-plugin.js';

let t: TestApp;
let a: TestTenant;
let browser: Browser;
let origin: string;
beforeAll(async () => {
  t = await createTestApp({ plugins: [notesPlugin] });
  a = await t.createTenant();
  await t.request({ method: 'POST', url: '/api/v1/notes', headers: a.headers(), payload: { body: 'seen through GraphiQL' } });
  await t.app.http.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(t.app.http.server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** Replaces the text of one of GraphiQL's editors as a user pasting it would. */
async function fill(page: Page, selector: string, text: string): Promise<void> {
  await page.locator(`${selector} .CodeMirror-lines`).filter({ visible: true }).click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
}

describe('the GraphQL playground (GET /graphql)', () => {
  it('is GraphiQL with its own assets: runs a query with the headers given, explores the schema and completes fields, and keeps no token', async () => {
    const page = await browser.newPage();
    const elsewhere: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(origin) && !request.url().startsWith('data:')) elsewhere.push(request.url());
    });
    page.setDefaultTimeout(10_000);
    await page.goto(`${origin}/graphql`);
    await page.waitForSelector('.graphiql-container .graphiql-query-editor .CodeMirror');

    // The headers editor is open by default; the token and the store go there.
    await fill(page, '.graphiql-editor-tool', JSON.stringify({ authorization: `Bearer ${a.adminToken}`, 'x-tenant-id': a.id }));
    await fill(page, '.graphiql-query-editor', '{ notes { edges { node { body } } } }');
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(`document.querySelector('.graphiql-response')?.textContent?.includes('seen through GraphiQL')`);

    // Completion from the schema: typing a field's first letters offers it.
    await fill(page, '.graphiql-query-editor', '{ ');
    await page.keyboard.type('no');
    await page.waitForSelector('.CodeMirror-hint');
    expect(await page.locator('.CodeMirror-hint').allTextContents()).toContain('notes');

    // The schema explorer lists the root fields.
    await page.click('[aria-label="Show Documentation Explorer"]');
    await page.click('.graphiql-doc-explorer a.graphiql-doc-explorer-type-name >> text=Query');
    await page.waitForSelector('.graphiql-doc-explorer >> text=notes');

    expect(elsewhere).toEqual([]);
    const stored = await page.evaluate<string>('JSON.stringify({ ...localStorage })');
    expect(stored).toContain('{ notes { edges { node { body } } } }'); // the history is kept, without its headers
    expect(stored).not.toContain(a.adminToken);
    await page.close();
  });

  it('serves its assets and the schema without a token, and nothing else under /graphql/assets', async () => {
    const js = await t.request({ method: 'GET', url: '/graphql/assets/graphiql.min.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    const schema = await t.request({ method: 'GET', url: '/graphql/schema.json' });
    expect(schema.json().__schema.queryType.name).toBe('Query');
    const other = await t.request({ method: 'GET', url: '/graphql/assets/..%2Fpackage.json' });
    expect(other.statusCode).toBe(404);
    expect(other.json().error.code).toBe('NOT_FOUND');
  });
});
