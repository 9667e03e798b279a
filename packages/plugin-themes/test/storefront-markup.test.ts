import blog from '@qhatu/plugin-blog';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kindOf, themesPlugin } from '../src/index.js';
import { caller, catalogTheme, STORE, type Caller } from './helpers.js';
import { CHROMIUM, JS, renderStore, type Shown } from './storefront-page.js';

const base64 = (text: string) => Buffer.from(text).toString('base64');

/** Markup that runs JS when put into a page as HTML: tags, handlers, script URLs, encodings and parser tricks. */
const MARKUP = [
  `<script>${JS}</script>`,
  `<scr<script>ipt>${JS}</script>`,
  `<img src=x onerror="${JS}">`,
  `<img src=x onerror="${JS}"//`,
  `<IMG SRC="javascript:${JS}">`,
  `<a href="javascript:${JS}">j1</a>`,
  `<a href="&#106;avascript:${JS}">j2</a>`,
  `<a href="java&#x09;script:${JS}">j3</a>`,
  `<a href="javascript&colon;${JS}">j4</a>`,
  `<a href="data:text/html;base64,${base64(`<script>${JS}</script>`)}">d1</a>`,
  `<a href="https://x.example/" onclick="${JS}" onmouseover="${JS}">h1</a>`,
  `<svg onload="${JS}">`,
  `<svg><script>${JS}</script></svg>`,
  `<svg><animate onbegin="${JS}" attributeName=x dur=1s>`,
  `<math><mtext><table><mglyph><style><img src=x onerror="${JS}">`,
  `<iframe src="javascript:${JS}"></iframe>`,
  `<iframe srcdoc="<script>${JS}</script>"></iframe>`,
  `<iframe srcdoc="&lt;img src=x onerror=${JS}&gt;"></iframe>`,
  `<object data="data:text/html;base64,${base64(`<script>${JS}</script>`)}"></object><embed src="javascript:${JS}">`,
  `<img src="data:image/svg+xml;base64,${base64(`<svg xmlns="http://www.w3.org/2000/svg" onload="${JS}"/>`)}">`,
  `<input autofocus onfocus="${JS}"><details open ontoggle="${JS}"><body onload="${JS}">`,
  `<noscript><p title="</noscript><img src=x onerror=${JS}>">`,
  `<!--><img src=x onerror="${JS}">-->`,
  `<div style="background:url(javascript:${JS})">styled</div><style>@import 'javascript:${JS}';</style>`,
  `<video><source onerror="${JS}"></video><audio src=x onerror="${JS}">`,
  `&lt;img src=x onerror="${JS}"&gt; &#60;img src=x onerror="${JS}"&#62;`,
  `<<img src=x onerror="${JS}">img src=x onerror="${JS}">`,
];

/** Addresses a URL setting refuses: script and data URLs however written, other schemes, another host's `//`. */
const BAD_URLS = [
  `javascript:${JS}`, `JaVaScRiPt:${JS}`, ` javascript:${JS}`, `java\tscript:${JS}`, `&#106;avascript:${JS}`, `javascript&colon;${JS}`,
  `data:text/html;base64,${base64(`<script>${JS}</script>`)}`, 'data:image/png;base64,AAAA', 'vbscript:msgbox(1)',
  'mailto:hola@andes.example', 'file:///etc/passwd', '//evil.example/x.js', '\\\\evil.example/x.js', `https://x.example/"onmouseover="${JS}`,
];
const GOOD_URLS = ['https://cdn.example/hero.png', 'http://cdn.example/a.png', '/collections/all', 'collections/all', '../up', '#top', '?page=2', '', 'https://andes.example/search?q=a&b=c'];

let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let storefront: Caller;
let browser: Browser;
beforeAll(async () => {
  t = await createTestApp({ plugins: [themesPlugin(), blog] });
  shop = await t.createTenant();
  admin = caller(t, shop);
  storefront = caller(t, shop, shop.storefrontToken);
  const theme = await catalogTheme(t, 0, { display_name: `Andes <img src=x onerror="${JS}">` });
  expect((await admin('POST', `${STORE}/${theme.id}/install`)).statusCode).toBe(201);
  expect((await admin('POST', `${STORE}/${theme.id}/activate`)).statusCode).toBe(200);
  await liveBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** The browser, launched again should its process have gone since (a crash of Chromium's, not of the page under test). */
async function liveBrowser(): Promise<Browser> {
  if (!browser?.isConnected()) browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  return browser;
}

/** A draft with every payload in a plain, an HTML and a nested setting, a block, and every safe address in URL settings. */
function hostileDraft() {
  const sections = Object.fromEntries(
    MARKUP.map((m, i) => [`s${i}`, {
      type: `rich-text ${m}`.slice(0, 100),
      settings: { heading: m, text_html: `<p>Section ${i}</p>${m}`, button: { label: m, url: GOOD_URLS[i % GOOD_URLS.length] }, lines: [m] },
      blocks: { b: { type: 'quote', settings: { author: m, quote_html: m, link: GOOD_URLS[(i + 1) % GOOD_URLS.length] } } },
      block_order: ['b'],
    }]),
  );
  return { section_order: Object.keys(sections), sections };
}

/** Every string of some settings, as a storefront following the naming rule shows it. */
function shownSettings(settings: { sections: Record<string, Record<string, unknown>> }, where: string): Shown[] {
  const out: Shown[] = [];
  const walk = (value: unknown, kind: Shown['kind'], field: string) => {
    if (typeof value === 'string') out.push({ field, kind, value });
    else if (Array.isArray(value)) value.forEach((v, i) => walk(v, kind, `${field}.${i}`));
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, k === 'type' ? 'text' : kindOf(k), `${field}.${k}`);
  };
  walk(settings.sections, 'text', where);
  return out;
}

async function publishedPosts(): Promise<Shown[]> {
  for (const [i, m] of MARKUP.entries()) {
    const res = await admin('POST', '/api/v1/blog/posts', {
      title: `Post ${i} ${m}`, excerpt: m, author: m, tags: [`tag ${m}`.slice(0, 64)], content: m, featured_image: 'https://cdn.example/post.png',
    });
    expect(res.statusCode, m).toBe(201);
    expect((await admin('POST', `/api/v1/blog/posts/${res.json().data.id}/publish`)).statusCode).toBe(200);
  }
  const read = await storefront('GET', '/api/v1/blog/posts?limit=100');
  expect(read.statusCode).toBe(200);
  const posts = read.json().data as Array<Record<string, string> & { tags: string[] }>;
  expect(posts).toHaveLength(MARKUP.length);
  return posts.flatMap((p): Shown[] => [
    ...(['title', 'excerpt', 'author'] as const).map((f) => ({ field: `post.${f}`, kind: 'text' as const, value: p[f] })),
    ...p.tags.map((value) => ({ field: 'post.tag', kind: 'text' as const, value })),
    { field: 'post.content', kind: 'html', value: p.content },
    { field: 'post.featured_image', kind: 'url', value: p.featured_image },
  ]);
}

describe('values a storefront renders', () => {
  it('refuses every script or foreign address in a URL setting, naming it, and keeps the draft', async () => {
    const before = (await admin('GET', '/admin/themes/draft')).json();
    for (const url of BAD_URLS) {
      const res = await admin('PUT', '/admin/themes/draft', { section_order: ['hero'], sections: { hero: { type: 'hero', settings: { heading: 'Hi', button: { url } } } } });
      expect(res.statusCode, url).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'THEME_SETTING_URL_INVALID', details: [{ path: 'body.sections.hero.settings.button.url', message: expect.any(String) }] });
    }
    // Nor may any other setting hold a script URL, whatever its name.
    const named = await admin('PUT', '/admin/themes/draft', { section_order: [], sections: { x: { type: 'x', settings: { target: `javascript:${JS}` }, blocks: { b: { type: 'b', settings: { image: 'data:image/png;base64,AAAA' } } } } } });
    expect(named.statusCode).toBe(422);
    expect(named.json().error.details.map((d: { path: string }) => d.path).sort()).toEqual(['body.sections.x.blocks.b.settings.image', 'body.sections.x.settings.target']);
    expect((await admin('GET', '/admin/themes/draft')).json()).toEqual(before);
  });

  it('keeps safe addresses, formatting and text as written', async () => {
    const settings = {
      links: GOOD_URLS,
      text_html: '<p>Hi <strong>there</strong>, <a href="/collections/all">shop</a> <a href="https://andes.example/">site</a><br><img src="https://cdn.example/a.png" alt="A"></p>',
      heading: 'Tom & Jerry <3 "quotes" &lt;b&gt; a < b',
    };
    const res = await admin('PUT', '/admin/themes/draft', { section_order: ['x'], sections: { x: { type: 'hero', settings } } });
    expect(res.statusCode).toBe(200);
    expect(res.json().sections.x.settings).toEqual({ ...settings, text_html: '<p>Hi <strong>there</strong>, <a href="/collections/all">shop</a> <a href="https://andes.example/">site</a><br /><img src="https://cdn.example/a.png" alt="A" /></p>' });
    const marked = await admin('PUT', '/admin/themes/draft', { section_order: ['x'], sections: { x: { type: '<b>hero</b>', settings: { heading: '<b>Sale</b> <i>now</i>', mail_html: '<a href="mailto:a@b.example">m</a><a href="//evil.example/">e</a>' } } } });
    expect(marked.json().sections.x).toEqual({ type: 'hero', settings: { heading: 'Sale now', mail_html: '<a>m</a><a>e</a>' } });
  });

  it('runs nothing in Chromium: theme draft, published settings, labels and blog posts, where the raw payloads do run', async () => {
    // The checks can fail: the payloads as sent, put where they would go, run.
    const raw = await renderStore(await liveBrowser(), [
      ...MARKUP.map((value, i): Shown => ({ field: `raw.${i}`, kind: 'html', value })),
      ...BAD_URLS.map((value, i): Shown => ({ field: `raw.url.${i}`, kind: 'url', value })),
    ]);
    expect(raw.dialogs.length).toBeGreaterThan(0);
    expect(raw.logs.length).toBeGreaterThan(0);
    expect(raw.audit).toMatchObject({ pwned: 1, protocols: expect.arrayContaining(['javascript:', 'data:']) });
    expect(raw.audit.dangerous).toBeGreaterThan(0);
    expect(raw.audit.handlers).toContain('onerror');

    expect((await admin('PUT', '/admin/themes/draft', hostileDraft())).statusCode).toBe(200);
    const version = await admin('POST', '/admin/themes/versions', { label: `Sale <img src=x onerror="${JS}">` });
    expect(version.json().label).toBe('Sale');
    expect((await admin('POST', '/admin/themes/publish')).statusCode).toBe(200);
    const live = await storefront('GET', '/api/v1/theme');
    expect(live.statusCode).toBe(200);
    const draft = (await admin('GET', '/admin/themes/draft')).json();
    expect(live.json().data.settings).toEqual(draft);
    const labels = (await admin('GET', '/admin/themes/versions')).json().versions.map((v: { label: string }) => v.label);

    const shown: Shown[] = [
      { field: 'theme.display_name', kind: 'text', value: live.json().data.display_name },
      ...labels.map((value: string): Shown => ({ field: 'version.label', kind: 'text', value })),
      ...shownSettings(live.json().data.settings, 'published'),
      ...shownSettings(draft, 'draft'),
      ...(await publishedPosts()),
    ];
    const kinds = (kind: Shown['kind']) => shown.filter((s) => s.kind === kind).length;
    expect([kinds('html'), kinds('text'), kinds('url')]).toEqual([MARKUP.length * 5, 1 + labels.length + MARKUP.length * 18, MARKUP.length * 5]);

    // Each value once (the draft is the published settings, many payloads clean to the same text).
    const distinct = [...new Map(shown.map((s) => [`${s.kind} ${s.value}`, s])).values()];
    // A storefront that escapes its text, then one that puts even plain text into innerHTML.
    for (const careless of [false, true]) {
      const { audit, dialogs, logs } = await renderStore(await liveBrowser(), distinct, careless);
      expect({ dialogs, logs }).toEqual({ dialogs: [], logs: [] });
      expect(audit).toEqual({ boxes: distinct.length, dangerous: 0, handlers: [], protocols: ['http:', 'https:'], pwned: null });
    }
  });
});
