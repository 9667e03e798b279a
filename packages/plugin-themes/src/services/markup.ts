import { decodeHTMLAttribute } from 'entities';
import { createRequire } from 'node:module';
import { onFirstUse } from '@qhatu/core';
import type sanitizeHtml from 'sanitize-html';

// Loaded when the first HTML is cleaned, not at every start (with its parser, some hundredths of a second).
const sanitizer = onFirstUse(() => createRequire(import.meta.url)('sanitize-html') as typeof sanitizeHtml);

/** What a setting's value is to a storefront, told by its name (decision 0056). */
export type SettingKind = 'html' | 'url' | 'text';

const HTML_NAME = /(^|_)html$/i;
const URL_NAME = /(^|_)(url|href|src|link|image)s?$/i;

/** `html`, `*_html`: HTML; `url`, `href`, `src`, `link`, `image` (or `*_url`, ..., plural too): a URL; anything else: plain text. */
export function kindOf(name: string): SettingKind {
  if (HTML_NAME.test(name)) return 'html';
  return URL_NAME.test(name) ? 'url' : 'text';
}

/**
 * The HTML a theme setting may keep (rich text of a section: an announcement, a footer note):
 * text formatting, headings, lists, links and images; no script, style, frame, svg or form, no
 * event handler, `style`, `class` or `target`. Links and images take http, https or relative
 * addresses only, as URL settings do.
 */
export const THEME_HTML_ALLOW_LIST: sanitizeHtml.IOptions = {
  allowedTags: [
    'p', 'br', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote',
    'strong', 'b', 'em', 'i', 'u', 's', 'small', 'sub', 'sup', 'mark', 'span',
    'ul', 'ol', 'li', 'a', 'img',
  ],
  allowedAttributes: { a: ['href', 'title'], img: ['src', 'alt', 'width', 'height'] },
  allowedSchemes: ['http', 'https'],
  allowedSchemesAppliedToAttributes: ['href', 'src'],
  allowProtocolRelative: false,
  // Dropped with what is inside them, not just unwrapped.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'iframe', 'object', 'embed', 'svg', 'math', 'template', 'noembed', 'noframes', 'xmp', 'plaintext', 'title', 'select', 'frameset'],
  disallowedTagsMode: 'discard',
  // An image whose address was refused says nothing.
  exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
};

export function sanitizeThemeHtml(html: string): string {
  return sanitizer()(html, THEME_HTML_ALLOW_LIST);
}

/** Starts a tag, an end tag, a comment or a declaration when it follows `<`. */
const TAG_START = /[A-Za-z!?/]/;
/** Elements whose content is code, not words: removed with it. */
const CODE_ELEMENT = /^<(script|style|template|iframe|noscript|noembed|noframes|xmp|textarea|title|svg|math|object)[\s/>]/;

/** Where the markup that starts at `i` ends: its `>`, a comment's `-->`, a code element's end tag. */
function markupEnd(lower: string, i: number): number {
  const past = (needle: string, from: number) => {
    const at = lower.indexOf(needle, from);
    return at === -1 ? lower.length : at + needle.length;
  };
  const element = CODE_ELEMENT.exec(lower.slice(i, i + 12));
  if (element) {
    const close = lower.indexOf(`</${element[1]}`, i + 1);
    return close === -1 ? lower.length : past('>', close);
  }
  return lower.startsWith('<!--', i) ? past('-->', i + 4) : past('>', i + 1);
}

/**
 * Plain text: whatever an HTML parser would read as a tag, an end tag, a comment or a
 * declaration is removed (scripts and styles with their content); everything else stays as
 * written, `&`, quotes and a lone `<` included. The result holds no `<` followed by a letter,
 * `!`, `/` or `?`, so it stays text even where a storefront puts it into HTML. One pass.
 */
export function plainText(text: string): string {
  const lower = text.toLowerCase();
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '<' && TAG_START.test(text[i + 1] ?? '')) {
      i = markupEnd(lower, i);
    } else if (out[out.length - 1] === '<' && TAG_START.test(c)) {
      // Markup removed just before joined a kept `<` with this letter: that is markup too.
      out.pop();
      i = markupEnd(lower, i);
    } else {
      out.push(c);
      i++;
    }
  }
  return out.join('');
}

/** What a browser ignores around and inside an address before it reads its scheme. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const IGNORED = /^[\u0000-\u0020]+|[\u0000-\u0020]+$|[\t\n\r]/g;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;

/** The address as written and as an HTML attribute would decode it (`&#106;avascript:`). */
function readings(url: string): string[] {
  return [url, decodeHTMLAttribute(url)].map((u) => u.replace(IGNORED, ''));
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_CHARACTERS = /[\s"'<>`\\\u0000-\u001f\u007f]/;

/** Why `url` may not be a URL setting (http, https or a relative path), or undefined when it may. */
export function urlProblem(url: string): string | undefined {
  if (UNSAFE_CHARACTERS.test(url)) return 'must not contain spaces, quotes, angle brackets, backslashes or control characters (percent-encode them)';
  for (const reading of readings(url)) {
    const scheme = SCHEME.exec(reading)?.[1].toLowerCase();
    if (scheme && scheme !== 'http' && scheme !== 'https') return `must be an http or https URL or a relative path, not ${scheme}:`;
    if (scheme && !URL.canParse(reading)) return 'is not a valid URL';
    if (!scheme && reading.startsWith('//')) return 'must name its scheme (https://), not start with //';
  }
  return undefined;
}

/** A script URL a browser runs or renders as a page: never a setting's value, whatever its name. */
export function isScriptUrl(value: string): boolean {
  return readings(value).some((r) => /^(javascript|vbscript):/i.test(r) || /^data:[\w.+-]+\/[\w.+-]+[;,]/i.test(r));
}
