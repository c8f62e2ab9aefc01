// Go's encoding/json matches object keys to struct fields without regard to case, preferring
// an exact match. Real configs rely on it ("RuntimeConfig", "bandWidth" appear in the reference's own test configs;
// https://pkg.go.dev/encoding/json#Unmarshal), so we
// rename keys to their canonical spelling before a schema sees them.

/** Go's foldName: ASCII upper-cased, other runes mapped through ToUpper(ToLower(r)). */
export function foldName(s: string): string {
  let out = '';
  for (const ch of s) {
    if (ch.charCodeAt(0) < 0x80) {
      out += ch.toUpperCase();
      continue;
    }
    // Go maps rune by rune; JS case mappings that expand (ß → SS) have no Go equivalent.
    const lower = ch.toLowerCase();
    const upper = lower.toUpperCase();
    out += [...lower].length === 1 && [...upper].length === 1 ? upper : ch;
  }
  return out;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Which key of `raw` feeds each canonical key: the exact spelling if present, else the last
 * key that folds to the same name (Go decodes keys in order, so the last one wins).
 */
export function matchKeys(raw: Record<string, unknown>, keys: readonly string[]): Map<string, string> {
  const canonical = new Set(keys);
  const byFold = new Map<string, string>();
  for (const k of Object.keys(raw)) if (!canonical.has(k)) byFold.set(foldName(k), k);
  const out = new Map<string, string>();
  for (const key of keys) {
    const src = Object.hasOwn(raw, key) ? key : byFold.get(foldName(key));
    if (src !== undefined) out.set(key, src);
  }
  return out;
}

/**
 * The values of `raw` under their canonical key names, matched like Go does. Keys that match
 * no canonical name are left out (Go ignores unknown fields).
 */
export function foldKeys<K extends string>(raw: Record<string, unknown>, keys: readonly K[]): { [P in K]?: unknown } {
  const out: { [P in K]?: unknown } = {};
  for (const [key, src] of matchKeys(raw, keys)) out[key as K] = raw[src];
  return out;
}
