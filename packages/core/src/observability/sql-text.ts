// A quoted string (E'', B'', X'', U&'' included), a dollar-quoted body, or a number that is not part of a name or a `$1` placeholder.
const LITERAL = /(?:\b[EeBbXx]|\b[Uu]&)?'(?:[^']|'')*'|\$([A-Za-z_]\w*)?\$[\s\S]*?\$\1\$|(?<![\w$.])\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\b/g;

/**
 * A statement with its literal values replaced by `?`: the ORM writes values into the text it
 * sends, and a trace must not carry what customers typed, token hashes or tenant ids.
 */
export function withoutLiterals(sql: string): string {
  return sql.replace(LITERAL, '?');
}
