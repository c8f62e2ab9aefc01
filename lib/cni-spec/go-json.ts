// JSON text as Go's encoding/json writes it, so runtimes and golden files see the same bytes
// as from the reference plugins.

const GO_ESCAPED = /[<>&\u2028\u2029]/g;

/**
 * JSON.stringify plus Go's HTML-safe escaping of <, >, & and U+2028/9 (they can only occur
 * inside strings, so replacing them in the text is safe). `indent` like json.MarshalIndent.
 */
export function goJSON(value: unknown, indent?: string): string {
  return JSON.stringify(value, null, indent).replace(GO_ESCAPED, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Go's %q for a string, close enough for the ASCII our messages carry. */
export function goQuote(s: string): string {
  return goJSON(s);
}

/** Go's %q for a []string: ["a" "b"]. */
export function goQuoteList(list: readonly string[]): string {
  return `[${list.map(goQuote).join(' ')}]`;
}
