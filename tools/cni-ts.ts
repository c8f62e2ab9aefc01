// cni-ts: the suite's own program, beside the plugins and cni-run. `cni-ts install` puts the
// programs of this build into a CNI plugin directory (a DaemonSet's init container, or by hand),
// owning what it installed and nothing else. Usage: docs/install.md.
import { Command, CommanderError, Option } from 'commander';
import { writeSync } from 'node:fs';
import { ALL_VERSIONS } from '../lib/cni-spec/index.ts';
import { install, uninstall, type RunContext, type Target } from './install/apply.ts';
import { VERSION } from './install/build-info.ts';
import { parseSet, prepareConflist, type Conflist } from './install/conflist.ts';
import { InstallError } from './install/files.ts';
import { defaultSourceDir, readSource } from './install/source.ts';
import { watchAndRepair } from './install/watch.ts';

interface InstallOptions {
  target: string;
  source?: string;
  programs?: string;
  takeOver?: boolean;
  confDir: string;
  conflist?: string;
  conflistName?: string;
  priority: string;
  set?: string[];
  watch?: boolean;
  interval: string;
  uninstall?: boolean;
  graceMs: string;
}

// Synchronous and unbuffered: an init container's log shows each line as its step ends, and a
// closed stdout (EPIPE) does not stop an install half-way.
const out = (line: string): void => {
  try {
    writeSync(1, `${line}\n`);
  } catch {
    // a reader that went away costs the log, not the install
  }
};
const complain = (err: unknown): void => {
  const msg = err instanceof InstallError ? err.message : err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  process.stderr.write(`cni-ts install: ${msg}\n`);
};

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

function number(flag: string, v: string, min: number): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < min) throw new InstallError(`${flag} ${v}: give a number of at least ${min}`);
  return n;
}

async function runInstall(o: InstallOptions): Promise<void> {
  const t: Target = { dir: o.target, confDir: o.confDir };
  const ctx: RunContext = { log: out, graceMs: number('--grace-ms', o.graceMs, 0) };
  if (o.uninstall) {
    if (o.watch) throw new InstallError('--uninstall and --watch do not go together');
    return uninstall(t, ctx);
  }
  const intervalMs = number('--interval', o.interval, 1) * 1000;
  const programs = o.programs?.split(',').filter((p) => p !== '');
  const source = readSource(o.source ?? defaultSourceDir(), programs);
  let conf: Conflist | undefined;
  if (o.conflist !== undefined) {
    conf = await prepareConflist({ template: o.conflist, name: o.conflistName, priority: o.priority, set: parseSet(o.set ?? []) });
  } else if (o.conflistName !== undefined || o.set !== undefined) {
    throw new InstallError('--conflist-name and --set go with --conflist');
  }
  out(`cni-ts ${VERSION}: installing the ${source.form === 'bun' ? 'Bun form' : 'bundles'} from ${source.dir} into ${t.dir}`);
  await install({ source, conf, takeOver: o.takeOver === true, version: VERSION }, t, ctx);
  if (!o.watch) return;
  const quiet: RunContext = { ...ctx, quiet: true };
  await watchAndRepair({
    dirs: conf === undefined ? [t.dir] : [t.dir, t.confDir],
    intervalMs,
    // Each round reads the source again: an image's files do not change, and a missing one is an error to see.
    round: async () => void (await install({ source: readSource(source.dir, programs), conf, takeOver: o.takeOver === true, version: VERSION }, t, quiet)),
    onError: complain,
    log: out,
  });
}

const program = new Command('cni-ts')
  .description('The cni-ts suite: install its programs into a CNI plugin directory')
  .version(`cni-ts ${VERSION}`, '-V, --version')
  .showHelpAfterError('(cni-ts help install shows its options)')
  .exitOverride();

program
  .command('install')
  .description('copy the programs of this build into a CNI plugin directory, each by temporary file and rename; files not ours are left alone')
  .option('--target <dir>', 'the plugin directory', '/opt/cni/bin')
  .option('--source <dir>', "the build's files (default: the directory of this program's own file)")
  .option('--programs <list>', 'a comma-separated subset of the programs (default: all)')
  .option('--take-over', 'replace files cni-ts did not install (foreign), and own them from then on')
  .option('--conf-dir <dir>', 'where --conflist is written', '/etc/cni/net.d')
  .option('--conflist <file>', 'a conflist template to write into the conf dir')
  .option('--conflist-name <name>', 'its file name part (default: the template\'s "name")')
  .option('--priority <nn>', 'numeric prefix of the file name: NN-name.conflist', '10')
  .option('--set <key=value>', "fills {{KEY}} in the template's string values (repeatable)", collect)
  .option('--watch', 'stay running and put back what is removed or changed')
  .option('--interval <sec>', 'with --watch: the period of the full check', '60')
  .option('--uninstall', 'remove what cni-ts installed there (and the conflist it wrote)')
  .addOption(new Option('--grace-ms <ms>', 'how long the Bun binary outlives its starters on a switch to the bundles').default('2000').hideHelp())
  .action(async (o: InstallOptions) => {
    try {
      await runInstall(o);
    } catch (err) {
      complain(err);
      process.exitCode = 1;
    }
  });

program
  .command('version')
  .description('our version and the CNI spec versions we support')
  .action(() => out(`cni-ts ${VERSION}\nCNI spec versions: ${ALL_VERSIONS.join(', ')}`));

async function main(): Promise<void> {
  try {
    await program.parseAsync();
  } catch (err) {
    // Help and --version end through here too, with exit code 0.
    if (err instanceof CommanderError) process.exitCode = err.exitCode === 0 ? 0 : 2;
    else throw err;
  }
}

void main();
