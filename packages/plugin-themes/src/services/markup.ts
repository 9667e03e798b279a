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
