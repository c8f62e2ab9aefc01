// Layering rules (docs/architecture.md#import-rules), checked on every import (static, and the
// dynamic `import('…')` that loads a verb's code lazily):
//   lib/cni-spec  knows nothing of Linux;
//   plugins/*     reach the kernel only through lib/linux (no netlink, child_process or addon);
//   stdout belongs to the CNI result, so no console.log outside tools, tests and scripts;
//   imports go down the layers: lib ← plugins ← runtime, tools; the tests' shared helpers
//   (test-support/) sit below e2e/, bench/ and scripts/, and e2e/ and scripts/ never import each other;
//   no import cycles among our modules (scripts/dev/import-cycles.ts).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
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

// Checked on the file an import names, resolved from the importing file. `tests` says whether a
// test file of `where` is held to the rule too (a test may import what sits below it).
interface FolderRule {
  readonly where: RegExp;
  readonly forbid: RegExp;
  readonly tests: boolean;
  readonly why: string;
}

const folderRules: FolderRule[] = [
  { where: /^lib\//, forbid: /^(?!lib\/)/, tests: false, why: 'lib imports nothing outside lib' },
  { where: /^plugins\//, forbid: /^(runtime|tools|scripts|e2e|test-support|bench)\//, tests: false, why: 'imports go one way: lib ← plugins ← runtime, tools' },
  { where: /^(runtime|tools)\//, forbid: /^(scripts|e2e|test-support|bench)\//, tests: false, why: 'shipped code imports no build, dev or test code' },
  { where: /^scripts\//, forbid: /^e2e\//, tests: true, why: 'scripts and e2e do not import each other (shared test helpers live in test-support/)' },
  { where: /^e2e\//, forbid: /^scripts\//, tests: true, why: 'scripts and e2e do not import each other (shared test helpers live in test-support/)' },
  { where: /^test-support\//, forbid: /^(e2e|bench|scripts)\//, tests: true, why: 'test-support is shared by the tests, so it imports none of them' },
];

const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

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
for (const top of ['lib', 'plugins', 'tools', 'runtime', 'test-support', 'e2e', 'bench', 'scripts']) {
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
      for (const m of line.matchAll(SPECIFIER)) {
        const target = normalize(join(dirname(rel), m[1] as string));
        for (const r of folderRules) {
          if (r.where.test(rel) && (r.tests || !rel.endsWith('.test.ts')) && r.forbid.test(target)) problems.push(`${rel}:${i + 1}: ${r.why}: ${line.trim()}`);
        }
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
