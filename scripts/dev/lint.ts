// Layering rules (docs/architecture.md#import-rules), checked on every import (static, and the
// dynamic `import('…')` that loads a verb's code lazily):
//   lib/cni-spec  knows nothing of Linux;
//   plugins/*     reach the kernel only through lib/linux (no netlink, child_process or addon);
//   stdout belongs to the CNI result, so no console.log outside tools, tests and scripts;
//   no import cycles among our modules (scripts/dev/import-cycles.ts).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { findCycles, valueImports } from './import-cycles.ts';

const root = join(import.meta.dirname, '..', '..');

interface Rule {
  readonly where: RegExp;
  readonly forbid: RegExp;
  readonly why: string;
}

const rules: Rule[] = [
  { where: /^lib\/cni-spec\//, forbid: /(from |import\()['"](netlink|.*\/linux\/|.*\/ipam\/)/, why: 'lib/cni-spec is the protocol only' },
  {
    where: /^plugins\//,
    forbid: /(from |import\()['"](netlink[/'"]|node:child_process|child_process|.*native)/,
    why: 'plugins reach the kernel through lib/linux',
  },
  { where: /^lib\//, forbid: /(from |import\()['"].*\/plugins\//, why: 'imports go one way: lib ← plugins' },
];

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else if (p.endsWith('.ts')) yield p;
  }
}

const problems: string[] = [];
const imports = new Map<string, string[]>();
for (const top of ['lib', 'plugins', 'tools', 'runtime', 'e2e', 'bench', 'scripts']) {
  let list: string[];
  try {
    list = [...files(join(root, top))];
  } catch {
    continue;
  }
  for (const file of list) {
    const rel = relative(root, file);
    const source = readFileSync(file, 'utf8');
    imports.set(rel, valueImports(rel, source));
    const lines = source.split('\n');
    lines.forEach((line, i) => {
      for (const r of rules) {
        if (r.where.test(rel) && r.forbid.test(line)) problems.push(`${rel}:${i + 1}: ${r.why}: ${line.trim()}`);
      }
      const isRuntimeCode = /^(lib|plugins)\//.test(rel) && !rel.endsWith('.test.ts');
      if (isRuntimeCode && /console\.log\(/.test(line)) {
        problems.push(`${rel}:${i + 1}: stdout carries only the CNI result; log to stderr`);
      }
    });
  }
}

for (const cycle of findCycles(imports)) problems.push(`import cycle: ${[...cycle, cycle[0]].join(' → ')}`);

if (problems.length > 0) {
  process.stderr.write(`${problems.join('\n')}\n${problems.length} lint problem(s)\n`);
  process.exit(1);
}
process.stdout.write('lint: ok\n');
