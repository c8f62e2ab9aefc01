// Go's encoding/json refuses input nested deeper than 10,000 arrays and objects
// (maxNestingDepth in its scanner), with code 6 from skel. V8's JSON.parse accepts far deeper
// input, and a deep value would then overflow the stack of any recursive walk after it
// (JSON.stringify already fails at 10,000 levels), so we refuse what Go refuses, first.
export const MAX_JSON_DEPTH = 10_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Go's error text when `text` opens more than `max` levels ("invalid character '[' exceeded
 * max depth"), else undefined. One linear pass, strings skipped; the text need not be valid.
 */
export function excessNesting(text: string, max = MAX_JSON_DEPTH): string | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return `invalid character '${text[i]}' exceeded max depth`;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return undefined;
}
