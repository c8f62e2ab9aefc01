// Reading `iptables-save -t <table>` output. Only what the masquerade code needs: which chains
// exist, and each rule as its chain, tokens and raw line (a saved line is valid restore input,
// so `-A` → `-D` deletes exactly that rule, whatever matches or counters it carries).

export interface SavedRule {
  readonly chain: string;
  /** the line as saved, starting with "-A <chain> " */
  readonly line: string;
  /** the line split like a shell would, quotes removed */
  readonly tokens: readonly string[];
}

export interface SavedTable {
  readonly chains: ReadonlySet<string>;
  readonly rules: readonly SavedRule[];
}

/** Splits a saved line: spaces separate, double quotes group, backslash escapes inside quotes. */
export function tokenizeSaved(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inToken = false;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '\\' && i + 1 < line.length) cur += line[++i];
      else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') {
      quoted = true;
      inToken = true;
    } else if (ch === ' ' || ch === '\t') {
      if (inToken) out.push(cur);
      cur = '';
      inToken = false;
    } else {
      cur += ch;
      inToken = true;
    }
  }
  if (inToken) out.push(cur);
  return out;
}

/** Parses the nat table of iptables-save output (other tables, if any, are ignored). */
export function parseSavedNat(text: string): SavedTable {
  return parseSavedTable(text, 'nat');
}

/** Parses one table of iptables-save output (other tables, if any, are ignored). */
export function parseSavedTable(text: string, table: string): SavedTable {
  const chains = new Set<string>();
  const rules: SavedRule[] = [];
  let inNat = false;
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (line.startsWith('*')) {
      inNat = line === `*${table}`;
    } else if (inNat && line.startsWith(':')) {
      chains.add(line.slice(1).split(' ')[0]!);
    } else if (inNat && line.startsWith('-A ')) {
      const tokens = tokenizeSaved(line);
      if (tokens[1] !== undefined) rules.push({ chain: tokens[1], line, tokens });
    }
  }
  return { chains, rules };
}

/** The value following `flag` in a rule, e.g. option(r, '-j'). A negated flag (`! -s`) does not count. */
export function ruleOption(rule: SavedRule, flag: string): string | undefined {
  const t = rule.tokens;
  for (let i = 2; i < t.length - 1; i++) {
    if (t[i] === flag && t[i - 1] !== '!') return t[i + 1];
  }
  return undefined;
}

/** Where the rule jumps or goes to. */
export function ruleTarget(rule: SavedRule): string | undefined {
  return ruleOption(rule, '-j') ?? ruleOption(rule, '-g');
}
