import { createRequire } from 'node:module';
import { onFirstUse } from '@qhatu/core';
import type sanitizeHtml from 'sanitize-html';

// Loaded when the first HTML is cleaned, not at every start (with its parser, some hundredths of a second).
const sanitizer = onFirstUse(() => createRequire(import.meta.url)('sanitize-html') as typeof sanitizeHtml);

/**
 * The HTML a post may keep. Everything else is dropped before the post is stored:
 * - no script, style, iframe, object, embed, svg, math or template, with all they contain; other
 *   tags not listed (form, button, input, meta, base, ...) go and their text stays;
 * - no event handlers (`on*`), no `style`, `class` or `id`: only the attributes listed here;
 * - links: http, https, mailto and tel, or relative; images: http and https, or relative
 *   (never `javascript:`, `data:` or `vbscript:`, however they are encoded or cased, and never
 *   protocol-relative `//host`); an image whose address is refused is dropped;
 * - a link that opens a new tab gets `rel="noopener noreferrer"`.
 */
export const CONTENT_ALLOW_LIST: sanitizeHtml.IOptions = {
  allowedTags: [
    'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'code', 'kbd', 'samp',
    'em', 'strong', 'b', 'i', 'u', 's', 'del', 'ins', 'sub', 'sup', 'small', 'mark', 'abbr', 'cite', 'q', 'time', 'span', 'div',
    'ul', 'ol', 'li', 'dl', 'dt', 'dd',
    'a', 'img', 'figure', 'figcaption',
    'table', 'caption', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'target', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height', 'loading'],
    abbr: ['title'],
    time: ['datetime'],
    ol: ['start', 'reversed'],
    th: ['colspan', 'rowspan', 'scope'],
    td: ['colspan', 'rowspan'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowedSchemesAppliedToAttributes: ['href', 'src'],
  allowProtocolRelative: false,
  // Dropped with what is inside them, not just unwrapped.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'iframe', 'object', 'embed', 'svg', 'math', 'template', 'noembed', 'noframes', 'xmp', 'plaintext', 'title', 'select', 'frameset'],
  disallowedTagsMode: 'discard',
  // An image whose address was refused says nothing.
  exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
  transformTags: {
    a: (tagName, attribs) => {
      const { target, rel, ...rest } = attribs;
      // A new tab must not reach back into the store's page (window.opener).
      if (target === '_blank') return { tagName, attribs: { ...rest, target, rel: 'noopener noreferrer' } };
      return { tagName, attribs: rel === undefined ? rest : { ...rest, rel } };
    },
  },
};

/** A post's HTML as it is stored and served: what the allow-list keeps. */
export function sanitizeContent(html: string): string {
  return sanitizer()(html, CONTENT_ALLOW_LIST);
}
