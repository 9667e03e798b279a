/** Starts a tag, an end tag, a comment or a declaration when it follows `<`. */
const TAG_START = /[A-Za-z!?/]/;
/** Elements whose content is code, not words: removed with it. */
const CODE_ELEMENT = /^<(script|style|template|iframe|noscript|noembed|noframes|xmp|textarea|title|svg|math|object)[\s/>]/;

/** Where the markup that starts at `i` of `lower` ends: past its `>`, a comment's `-->`, a code element's end tag. */
function endOfMarkup(lower: string, i: number): number {
  const past = (needle: string, from: number) => {
    const at = lower.indexOf(needle, from);
    return at === -1 ? lower.length : at + needle.length;
  };
  const code = CODE_ELEMENT.exec(lower.slice(i, i + 12));
  if (code) {
    const close = lower.indexOf(`</${code[1]}`, i + 1);
    return close === -1 ? lower.length : past('>', close);
  }
  return lower.startsWith('<!--', i) ? past('-->', i + 4) : past('>', i + 1);
}

/**
 * Plain text as a store keeps it (a post's title, a theme's name): whatever an HTML parser would
 * read as a tag, an end tag, a comment or a declaration is removed (scripts and styles with their
 * content); the rest stays as written, `&`, quotes and a lone `<` included. No `<` followed by a
 * letter, `!`, `/` or `?` is left, so the text stays text even where a storefront puts it into
 * HTML. One pass.
 */
export function plainText(text: string): string {
  const lower = text.toLowerCase();
  const kept: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '<' && TAG_START.test(text[i + 1] ?? '')) {
      i = endOfMarkup(lower, i);
    } else if (kept[kept.length - 1] === '<' && TAG_START.test(text[i])) {
      // Markup removed just before joined a kept `<` to this letter: that is a tag too.
      kept.pop();
      i = endOfMarkup(lower, i);
    } else {
      kept.push(text[i++]);
    }
  }
  return kept.join('');
}
