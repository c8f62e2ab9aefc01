// What cni-run tells a person when something fails, and its exit status (docs/cni-run.md#exit-status).
// Pure: an error in, lines and a status out.
import { CniError } from '../../lib/cni-spec/index.ts';
import { CacheError } from '../libcni/cache.ts';
import { NetworkNotFoundError } from '../libcni/conf-dir.ts';
import { ConfigListError } from '../libcni/conflist.ts';
import { PluginError, PluginNotFoundError } from '../libcni/invoke.ts';
import { UsageError } from './cap-flags.ts';
import { AddFailedError, NoCachedResultError } from './commands.ts';

export const EXIT = {
  ok: 0,
  /** a plugin failed (its CNI error is shown), or validate found an error */
  failed: 1,
  /** the command line is wrong */
  usage: 2,
  /** nothing ran (or nothing could): network not found, bad config, missing plugin, no cached result */
  config: 3,
} as const;

// The spec's error codes (https://github.com/containernetworking/cni/blob/spec-v1.1.0/SPEC.md#error).
const CODE_NAMES: Readonly<Record<number, string>> = {
  1: 'incompatible CNI version',
  2: 'unsupported field in network configuration',
  3: 'container unknown or does not exist',
  4: 'invalid necessary environment variables',
  5: 'I/O failure',
  6: 'failed to decode content',
  7: 'invalid network config',
  11: 'try again later',
  50: 'plugin not available',
  51: 'plugin not available, limited connectivity',
  999: 'unexpected error in the plugin',
};

export const codeName = (code: number): string => CODE_NAMES[code] ?? (code >= 100 ? 'plugin-specific error' : 'reserved code');

function chain(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e: unknown = err; e !== undefined && !out.includes(e); e = e instanceof Error ? e.cause : undefined) out.push(e);
  return out;
}

function find<T>(err: unknown, type: abstract new (...a: never[]) => T): T | undefined {
  return chain(err).find((e): e is T => e instanceof type);
}

const indent = (lines: readonly string[]): string[] => lines.map((l) => `  ${l}`);

function pluginErrorLines(e: PluginError): string[] {
  const lines = [e.context ?? e.message];
  let msg: string | undefined;
  try {
    msg = (JSON.parse(e.output.stdout) as { msg?: string }).msg;
  } catch {
    // no error object on stdout: libcni's message (in e.message) says what happened
  }
  if (e.code !== undefined) lines.push(`  CNI error code ${e.code} (${codeName(e.code)})`);
  lines.push(`  msg:     ${msg ?? e.message}`);
  if (e.details !== undefined && e.details !== '') lines.push(`  details: ${e.details}`);
  const stderr = e.output.stderr.trim();
  if (stderr !== '') lines.push('  plugin stderr:', ...indent(indent(stderr.split('\n'))));
  return lines;
}

function notFoundLines(e: PluginNotFoundError): string[] {
  return [
    `plugin "${e.type}" not found; searched:`,
    ...e.searched.map((s) => `  ${s.dir}: ${s.why}`),
    'give the plugin directories with --plugin-dir DIR[:DIR] (or CNI_PATH)',
  ];
}

function networkNotFoundLines(e: NetworkNotFoundError): string[] {
  if (e.dirMissing) return [`network "${e.network}" not found: the conf dir ${e.dir} does not exist (set it with --conf-dir or NETCONFPATH)`];
  const there = e.available.map((n) => `  ${n.name ?? '(unreadable)'}  ${n.file}${n.error !== undefined ? `: ${n.error}` : ''}`);
  return [
    `network "${e.network}" not found in ${e.dir}`,
    ...(there.length > 0 ? [`networks there (*.conflist, then *.conf and *.json):`, ...there] : [`${e.dir} holds no *.conflist, *.conf or *.json file`]),
  ];
}

/** The lines for one error that is not a wrapper of others. */
function leafLines(err: unknown): { lines: string[]; exit: number } {
  const notFound = find(err, PluginNotFoundError);
  if (notFound) return { lines: notFoundLines(notFound), exit: EXIT.config };
  const plugin = find(err, PluginError);
  if (plugin) return { lines: pluginErrorLines(plugin), exit: EXIT.failed };
  const network = find(err, NetworkNotFoundError);
  if (network) return { lines: networkNotFoundLines(network), exit: EXIT.config };
  if (err instanceof UsageError) return { lines: [err.message], exit: EXIT.usage };
  if (err instanceof ConfigListError || err instanceof CacheError || err instanceof NoCachedResultError) return { lines: [err.message], exit: EXIT.config };
  // Our own checks before anything runs (libcni's): a bad --container-id or --ifname is the command line's.
  if (err instanceof CniError) return { lines: [`${err.message}`], exit: err.code === 7 ? EXIT.config : EXIT.usage };
  return { lines: [err instanceof Error ? err.message : String(err)], exit: EXIT.failed };
}

function errorsOf(err: unknown): unknown[] {
  return err instanceof AggregateError ? err.errors.flatMap(errorsOf) : [err];
}

/** What to print on stderr (each line prefixed by the caller) and the exit status. */
export function describeError(verb: string, err: unknown): { lines: string[]; exit: number } {
  const main = err instanceof AddFailedError ? err.failure : err;
  const parts = errorsOf(main).map(leafLines);
  const lines = [`${verb} failed:`, ...parts.flatMap((p) => indent(p.lines))];
  if (err instanceof AddFailedError) {
    if (err.undo.ok) lines.push('the ADD was undone: every plugin of the list got DEL, as a runtime does after a failed ADD');
    else lines.push('undoing the ADD (DEL of every plugin) failed too:', ...indent(errorsOf(err.undo.error).flatMap((e) => leafLines(e).lines)));
  }
  // The most telling status wins: a usage or config problem over a plugin failure.
  const exit = Math.max(...parts.map((p) => p.exit));
  return { lines, exit };
}
