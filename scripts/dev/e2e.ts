// One command for one e2e test against one form (`npm run e2e`):
//
//   npm run e2e -- [--form bun|bundle|go] [FILE…] [-- TAP_OPTION…]
//
// runs the e2e files (all of them when none is named) with CNI_E2E_FORM set (e2e/helpers/plugins.ts):
// the Bun binary (the default, the recommended form), the bundles, or the Go reference for the
// suites that judge an implementation. A form older than the sources (scripts/build/source-stamp.ts)
// is rebuilt first, so an edit is never silently not tested.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { type BuiltForm, staleness } from '../build/source-stamp.ts';

const root = join(import.meta.dirname, '..', '..');
const FORMS = ['bun', 'bundle', 'go'] as const;
type Form = (typeof FORMS)[number];

// What the suites that can judge the Go reference say of themselves (e2e/helpers/impl.ts).
const JUDGES_ANY_IMPL = 'Judges the implementation CNI_E2E_FORM names';
// Files that test a built form whatever CNI_E2E_FORM says.
const FORMS_USED_ANYWAY: Record<string, BuiltForm[]> = {
  'bun.test.ts': ['bun'],
  'install.test.ts': ['bundle', 'bun'],
  // e2e/install/: the installer of each form, installing either form
  'under-load.test.ts': ['bundle', 'bun'],
  'ownership.test.ts': ['bundle', 'bun'],
  'refusals.test.ts': ['bundle', 'bun'],
  // e2e/image/upgrade.test.ts: the bundles' installer, then the image's
  'upgrade.test.ts': ['bundle', 'bun'],
};
// Files that run the OCI image of the Bun form: `npm run image` first (a no-op when it is current).
const USES_IMAGE = /^e2e\/image\//;
const BUILD: Record<BuiltForm, string> = { bundle: 'build', bun: 'build:bun' };

class UsageError extends Error {}

interface Args {
  form: Form;
  files: string[];
  tapArgs: string[];
}

export function parseArgs(argv: readonly string[]): Args {
  let form: Form = 'bun';
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--') return { form, files, tapArgs: argv.slice(i + 1) };
    const value = a === '--form' ? argv[++i] : a.startsWith('--form=') ? a.slice('--form='.length) : undefined;
    if (a === '--form' || a.startsWith('--form=')) {
      if (!(FORMS as readonly string[]).includes(value ?? '')) throw new UsageError(`unknown form "${value ?? ''}": --form takes ${FORMS.join(', ')}`);
      form = value as Form;
    } else if (a.startsWith('-')) {
      throw new UsageError(`unknown option ${a} (tap's options go after --)`);
    } else files.push(a);
  }
  return { form, files, tapArgs: [] };
}

function allE2eFiles(): string[] {
  return readdirSync(join(root, 'e2e'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.test.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}

function checkFiles(form: Form, named: readonly string[]): string[] {
  const files = named.length > 0 ? named.map((f) => relative(root, resolve(process.env['INIT_CWD'] ?? process.cwd(), f))) : allE2eFiles();
  for (const f of files) {
    if (!existsSync(join(root, f))) throw new UsageError(`no such file: ${f}`);
    if (!f.endsWith('.test.ts')) throw new UsageError(`not a test file: ${f}`);
  }
  if (form === 'go') {
    const judging = allE2eFiles().filter((f) => readFileSync(join(root, f), 'utf8').includes(JUDGES_ANY_IMPL));
    const others = files.filter((f) => !judging.includes(f));
    if (named.length === 0) return judging;
    if (others.length > 0) {
      throw new UsageError(`--form go runs only the suites that judge an implementation (${judging.join(', ')}); not ${others.join(', ')}`);
    }
  }
  return files;
}

/** The built forms these files run: the one asked for (go's suites run ours too: the Bun form), and those some files test anyway. */
function formsNeeded(form: Form, files: readonly string[]): BuiltForm[] {
  const needed = new Set<BuiltForm>([form === 'bundle' ? 'bundle' : 'bun']);
  for (const f of files) for (const x of FORMS_USED_ANYWAY[basename(f)] ?? []) needed.add(x);
  return [...needed];
}

function main(argv: readonly string[]): number {
  const { form, files: named, tapArgs } = parseArgs(argv);
  const files = checkFiles(form, named);
  for (const built of formsNeeded(form, files)) {
    const why = staleness(built);
    if (why === undefined) continue;
    console.error(`npm run e2e: the ${built} form is stale (${why}): npm run ${BUILD[built]}`);
    const b = spawnSync('npm', ['run', '--silent', BUILD[built]], { cwd: root, stdio: 'inherit' });
    if (b.status !== 0) {
      console.error(`npm run e2e: npm run ${BUILD[built]} failed`);
      return 1;
    }
  }
  if (files.some((f) => USES_IMAGE.test(f)) && spawnSync('npm', ['run', '--silent', 'image'], { cwd: root, stdio: 'inherit' }).status !== 0) {
    console.error('npm run e2e: npm run image failed');
    return 1;
  }
  const env = { ...process.env, CNI_E2E_FORM: form };
  const r = spawnSync('npx', ['tap', ...tapArgs, ...files], { cwd: root, stdio: 'inherit', env });
  return r.status ?? 1;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`npm run e2e: ${e.message}\nusage: npm run e2e -- [--form bun|bundle|go] [FILE…] [-- TAP_OPTION…]`);
    process.exitCode = 2;
  }
}
