/**
 * Reviews are plain text. What looks like markup is taken out when a review is written, so a
 * storefront that drops the text into HTML is never handed a tag (the API still answers JSON and
 * the admin panel escapes everything it prints): script and style elements go with their content,
 * comments and tags go, and what is left keeps its line breaks with other control characters removed.
 */
const SCRIPT_OR_STYLE = /<(script|style|iframe|object|embed|template|noscript)\b[\s\S]*?(<\/\1\s*>|$)/gi;
const COMMENT = /<!--[\s\S]*?(-->|$)/g;
// A tag: `<` then a letter, `/`, `!` or `?`, up to the next `>` (or the end: browsers drop an unclosed tag).
const TAG = /<[a-zA-Z/!?][^>]*(>|$)/g;
// C0 and C1 controls but tab, line feed and carriage return.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

export function plainText(value: string): string {
  let text = value.replace(CONTROL, '');
  // Removing one tag can join the halves of another (`<scr<b>ipt>`): repeat until nothing changes.
  for (let previous = ''; previous !== text; ) {
    previous = text;
    text = text.replace(SCRIPT_OR_STYLE, '').replace(COMMENT, '').replace(TAG, '');
  }
  return text.replace(/\r\n?/g, '\n').trim();
}

/** `plainText`, with an empty result read as no text at all. */
export function optionalPlainText(value: string | null | undefined): string | null {
  if (value == null) return null;
  const text = plainText(value);
  return text === '' ? null : text;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Text made safe for HTML content and quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"'`]/g, (c) => HTML_ESCAPES[c]);
}
