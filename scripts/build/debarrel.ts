// Build-time only: imports from our barrel modules (lib/linux/index.ts, lib/cni-spec/index.ts,
// …) rewritten to import each name from the module that defines it.
//
// Why: the bundles load each verb, and the Bun binary each program, with a lazy import(). esbuild
// then wraps every module in an init function, and a module's init runs the inits of all it
// imports, so importing one name from a barrel evaluates every module the barrel re-exports.
// loopback's ADD evaluated all of lib/linux (veth, tc, nftables, firewall, node:crypto …):
// 14 ms of its start under Bun (profiled). The source keeps its barrels, which are the
// layers' public faces (docs/architecture.md); the bundle imports what is used.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** name exported by a barrel -> absolute path of the module that defines it */
export type BarrelMap = ReadonlyMap<string, string>;

const stripComments = (src: string) => src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

/** The names of a `{ a, b as c, type T }` list: [imported or exported name, local name]. */
export function parseSpecifiers(list: string): Array<{ name: string; as: string; typeOnly: boolean }> {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      const m = /^(type\s+)?([A-Za-z_$][\w$]*)(?:\s+as\s+([A-Za-z_$][\w$]*))?$/.exec(s);
      if (!m) throw new Error(`cannot read import/export specifier ${JSON.stringify(s)}`);
      return { name: m[2]!, as: m[3] ?? m[2]!, typeOnly: m[1] !== undefined };
    });
}

/**
 * What a barrel exports and from where. A barrel may hold imports, re-exports
 * (`export { … } from`, `export type { … } from`, `export * from`) and declarations of its own
 * (`export function f`), whose names map to the barrel itself. Any other export form fails the
 * build: a name this cannot place must not be imported from the wrong module.
 */
export function parseBarrel(file: string, read: (file: string) => string = (f) => readFileSync(f, 'utf8')): BarrelMap {
  const map = new Map<string, string>();
  const src = stripComments(read(file));
  const dir = dirname(file);
  for (const at of src.matchAll(/^export\b/gm)) {
    const rest = src.slice(at.index);
    let m: RegExpExecArray | null;
    if ((m = /^export\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'([^']+)';/.exec(rest))) {
      const target = resolve(dir, m[2]!);
      for (const s of parseSpecifiers(m[1]!)) map.set(s.as, s.name === s.as ? target : `${target}#${s.name}`);
    } else if ((m = /^export\s+\*\s+from\s*'([^']+)';/.exec(rest))) {
      for (const [name, target] of parseBarrel(resolve(dir, m[1]!), read)) map.set(name, target);
    } else if ((m = /^export\s+(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/.exec(rest))) {
      map.set(m[1]!, file);
    } else {
      throw new Error(`${file}: cannot place the names of ${JSON.stringify(rest.split('\n')[0])}`);
    }
  }
  return map;
}

const IMPORT_RE = /^import\s*\{([^}]*)\}\s*from\s*'([^']+)';[ \t]*$/gm;

/**
 * `source` (a file in `dir`) with each `import { … } from '<barrel>'` replaced by one import per
 * defining module, on the same line so positions in error messages keep their line numbers.
 * A renamed re-export (`export { a as b }`) is imported by its original name.
 */
export function rewriteImports(source: string, dir: string, barrels: ReadonlyMap<string, BarrelMap>): string {
  return source.replace(IMPORT_RE, (whole, list: string, spec: string) => {
    const barrel = barrels.get(resolve(dir, spec));
    if (!barrel) return whole;
    const byModule = new Map<string, string[]>();
    for (const s of parseSpecifiers(list)) {
      if (s.typeOnly) continue;
      const target = barrel.get(s.name);
      if (target === undefined) throw new Error(`${spec} does not export ${s.name}`);
      const [path, original = s.name] = target.split('#') as [string, string?];
      const names = byModule.get(path) ?? [];
      names.push(original === s.as ? original : `${original} as ${s.as}`);
      byModule.set(path, names);
    }
    const lines = [...byModule].map(([path, names]) => `import { ${names.join(', ')} } from ${JSON.stringify(path)};`);
    return lines.join(' ') + '\n'.repeat(whole.split('\n').length - 1);
  });
}
