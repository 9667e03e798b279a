import type { Browser, Page } from 'playwright-core';

/** Debian's chromium (`.ci/run` installs it when it is missing). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ORIGIN = 'https://shop.example';

/** Every payload of the tests runs this: a flag on the page, a console line and a dialog. */
export const JS = 'top.pwned=1,console.log(/pwned/),alert(1)';

/** One value a storefront renders: as HTML (innerHTML), as text (textContent) or as a link, an image and a frame. */
export interface Shown {
  field: string;
  kind: 'html' | 'text' | 'url';
  value: string;
}

/**
 * A storefront page: `renderStore` puts each value where a storefront would, and `audit`
 * reports what the browser itself made of them: elements that run or load code, handler
 * attributes, and the schemes of every link, image and frame address as resolved.
 * With `careless`, plain text goes through innerHTML as well, as a storefront that forgot to escape would.
 */
const PAGE = `<!doctype html><html><head><title>Store</title></head><body><main id="store"></main>
<script>
  window.renderStore = (items, careless) => {
    const root = document.getElementById('store');
    for (const { field, kind, value } of items) {
      const box = document.createElement('section');
      box.dataset.field = field;
      box.dataset.kind = kind;
      if (kind === 'html' || (kind === 'text' && careless)) box.innerHTML = value;
      else if (kind === 'text') box.textContent = value;
      else {
        const a = document.createElement('a');
        a.href = value;
        a.textContent = field;
        const img = document.createElement('img');
        img.src = value;
        const frame = document.createElement('iframe');
        frame.src = value;
        box.append(a, img, frame);
      }
      root.append(box);
    }
  };
  window.audit = () => {
    const markup = [...document.querySelectorAll('section[data-kind=html], section[data-kind=text]')];
    const inMarkup = (selector) => markup.reduce((n, box) => n + box.querySelectorAll(selector).length, 0);
    const all = [...document.querySelectorAll('#store *')];
    const addresses = [
      ...[...document.querySelectorAll('#store a[href]')].map((a) => a.href),
      ...[...document.querySelectorAll('#store img[src], #store iframe[src]')].map((e) => e.src),
    ];
    return {
      boxes: document.querySelectorAll('#store > section').length,
      dangerous: inMarkup('script, iframe, frame, object, embed, svg, math, style, link, meta, base, form, input, button, textarea, template, video, audio, source'),
      handlers: [...new Set(all.flatMap((e) => e.getAttributeNames().filter((n) => n.startsWith('on') || n === 'style' || n === 'srcdoc')))].sort(),
      protocols: [...new Set(addresses.map((u) => new URL(u).protocol))].sort(),
      pwned: window.pwned ?? null,
    };
  };
</script></body></html>`;

export interface Audit {
  boxes: number;
  dangerous: number;
  handlers: string[];
  protocols: string[];
  pwned: number | null;
}

/** Renders `items` on a fresh storefront page; nothing but the page itself loads. */
export async function renderStore(browser: Browser, items: Shown[], careless = false): Promise<{ audit: Audit; dialogs: string[]; logs: string[] }> {
  const page: Page = await browser.newPage();
  const dialogs: string[] = [];
  const logs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    // A dialog may be gone already (its frame went away): that is not the page's failure.
    dialog.dismiss().catch(() => undefined);
  });
  page.on('console', (message) => logs.push(message.text()));
  await page.route('**/*', (route) =>
    route.request().url() === `${ORIGIN}/` ? route.fulfill({ contentType: 'text/html', body: PAGE }) : route.abort(),
  );
  await page.goto(`${ORIGIN}/`, { waitUntil: 'load' });
  await page.evaluate(([shown, sloppy]) => (globalThis as unknown as { renderStore(i: Shown[], c: boolean): void }).renderStore(shown, sloppy), [items, careless] as const);
  // Handlers of failed loads, frames, animations and toggles run right after: let them have their turn.
  await page.waitForTimeout(400);
  const audit = await page.evaluate(() => (globalThis as unknown as { audit(): Audit }).audit());
  await page.close();
  return { audit, dialogs, logs: logs.filter((line) => line.includes('pwned')) };
}
