// The one owner of CNI_* env, stdin, stdout and the exit code (docs/architecture.md#the-protocol-layer).
// It mirrors the reference skel (https://github.com/containernetworking/cni/blob/v1.3.0/pkg/skel/skel.go;
// https://github.com/containernetworking/cni/blob/spec-v1.1.0/SPEC.md#section-2-execution-protocol): same checks, same order, same messages and codes.
import { readSync, writeSync } from 'node:fs';
import { basename } from 'node:path';
import { commonConfSchema } from './common-conf.ts';
import { decodeConfig, parseWithSchema } from './config.ts';
import { asCniError, CniError, ErrorCode } from './errors.ts';
import { foldKeys } from './fold.ts';
import { goJSON } from './go-json.ts';
import { missingEnv, netnsOverride, splitCniPath, validateContainerId, validateIfName, validateNetworkName } from './env.ts';
import { assertForeignNetns } from './netns-self.ts';
import { parseResult } from './result-parse.ts';
import { renderResult } from './result-convert.ts';
import type { CniRequest, PluginIO, PluginSpec, Verb } from './request.ts';
import type { Result } from './result.ts';
import { finishTiming, startTiming, timed, timingRequested } from './timing.ts';
import { CURRENT_VERSION, DEFAULT_VERSION } from './versions.ts';
import { checkVersion } from './version-gate.ts';

export type { CniRequest, PluginIO, PluginSpec, Verb } from './request.ts';

const VERBS: readonly string[] = ['ADD', 'DEL', 'CHECK', 'GC', 'STATUS'];

async function readStdin(io: PluginIO): Promise<Buffer> {
  try {
    return await io.readStdin();
  } catch (err) {
    throw new CniError(ErrorCode.IOFailure, `error reading from stdin: ${(err as Error).message}`, undefined, { cause: err });
  }
}

// Go decodes these through struct fields, so they fold case and must have the right type.
function readName(name: unknown): string {
  if (name !== undefined && name !== null && typeof name !== 'string') {
    throw new CniError(ErrorCode.InvalidNetworkConfig, 'network name must be a string');
  }
  const n = typeof name === 'string' ? name : '';
  validateNetworkName(n);
  return n;
}

function readVersion(v: unknown): string {
  if (v !== undefined && v !== null && typeof v !== 'string') {
    throw new CniError(ErrorCode.DecodingFailure, 'decoding version from network config: cniVersion must be a string');
  }
  return typeof v === 'string' && v !== '' ? v : DEFAULT_VERSION;
}

function parsePrevResult(raw: unknown, version: string): Result | undefined {
  if (raw === undefined || raw === null) return undefined;
  try {
    return parseResult(raw, version);
  } catch (err) {
    const e = asCniError(err);
    // A malformed prevResult is a malformed network config.
    const code = e.code === ErrorCode.DecodingFailure ? ErrorCode.InvalidNetworkConfig : e.code;
    throw new CniError(code, `could not parse prevResult: ${e.msg}`, e.details, { cause: err });
  }
}

function handlerFor(spec: PluginSpec, command: Verb): ((req: CniRequest) => Promise<unknown>) | undefined {
  return { ADD: spec.add, DEL: spec.del, CHECK: spec.check, GC: spec.gc, STATUS: spec.status }[command];
}

/** The text for stdout on success ('' for nothing); throws on any failure. */
async function dispatch(spec: PluginSpec, io: PluginIO): Promise<string> {
  const env = io.env;
  const command = env['CNI_COMMAND'] ?? '';
  const missing = missingEnv(command, env);
  if (missing.length > 0) {
    if (command === '' && spec.about !== '') {
      io.stderr(`${spec.about}\nCNI protocol versions supported: ${spec.versions.join(', ')}\n`);
      return '';
    }
    throw new CniError(ErrorCode.InvalidEnvironmentVariables, `required env variables [${missing.join(',')}] missing`);
  }
  // VERSION never reads stdin and always answers in the newest version (json.Encoder: compact + newline).
  if (command === 'VERSION') return `${goJSON({ cniVersion: CURRENT_VERSION, supportedVersions: spec.versions })}\n`;
  // Decided before reading stdin (skel reads it first): nobody is left waiting on a pipe for a verb we don't know.
  if (!VERBS.includes(command)) throw new CniError(ErrorCode.InvalidEnvironmentVariables, `unknown CNI_COMMAND: ${command}`);
  const verb = command as Verb;

  const stdin = await readStdin(io);
  const parsed = timed('config', () => parseRequest(spec, verb, env, stdin));
  if (parsed === undefined) return '';
  const { handler, req } = parsed;
  // The reference checks this after ADD/DEL ran; refusing first leaves the host untouched.
  // CHECK too (the reference does not): it would otherwise judge the host as the container.
  if (verb !== 'GC' && verb !== 'STATUS' && !netnsOverride(env['CNI_NETNS_OVERRIDE'])) await assertForeignNetns(req.netns);

  if (verb !== 'ADD') {
    await handler(req);
    return '';
  }
  return renderResult((await handler(req)) as Result, req.cniVersion);
}

/** skel's checks of the config, in its order; undefined when the verb has no handler (a successful no-op). */
function parseRequest(
  spec: PluginSpec,
  verb: Verb,
  env: Record<string, string | undefined>,
  stdin: Buffer,
): { handler: (req: CniRequest) => Promise<unknown>; req: CniRequest } | undefined {
  const config = decodeConfig(stdin);
  const fields = foldKeys(config, ['name', 'cniVersion', 'prevResult']);
  const name = readName(fields.name);
  if (verb === 'ADD' || verb === 'DEL' || verb === 'CHECK') {
    validateContainerId(env['CNI_CONTAINERID'] ?? '');
    validateIfName(env['CNI_IFNAME'] ?? '');
  }
  const version = readVersion(fields.cniVersion);
  checkVersion(verb, version, spec);
  // After skel's own checks (their codes and messages come first), before any handler.
  parseWithSchema(commonConfSchema(), config);
  const handler = handlerFor(spec, verb);
  // No handler for CHECK/GC/STATUS: the version gates passed, so it is a successful no-op.
  if (handler === undefined) return undefined;

  const prevResult = parsePrevResult(fields.prevResult, version);
  const req: CniRequest = {
    command: verb,
    containerId: env['CNI_CONTAINERID'] ?? '',
    netns: env['CNI_NETNS'] ?? '',
    ifname: env['CNI_IFNAME'] ?? '',
    args: env['CNI_ARGS'] ?? '',
    path: splitCniPath(env['CNI_PATH']),
    env: { ...env },
    stdin,
    config,
    cniVersion: version,
    name,
    ...(prevResult && { prevResult }),
  };
  return { handler, req };
}

/**
 * Runs one plugin invocation against injected env/stdin/stdout/stderr. Returns the exit code
 * and never throws. stdout gets exactly one write: the result, the VERSION answer or the
 * error object (pretty-printed like Go, without cniVersion), or nothing.
 */
export async function runPlugin(spec: PluginSpec, io: PluginIO): Promise<number> {
  // CNI_TIMING: phase times to stderr after the result (timing.ts); off, nothing is measured.
  if (timingRequested(io.env)) startTiming();
  let out: string;
  let code = 0;
  try {
    out = await dispatch(spec, io);
  } catch (err) {
    out = goJSON(asCniError(err).toJSON(), '    ');
    code = 1;
  }
  try {
    if (out !== '') io.stdout(out);
  } catch {
    code = 1;
  }
  const timing = finishTiming(io.program ?? 'plugin', io.env['CNI_COMMAND'] || 'none');
  if (timing !== undefined) {
    try {
      io.stderr(timing);
    } catch {
      // timing is a diagnostic: it never changes the outcome
    }
  }
  return code;
}

// Plain blocking reads on fd 0: touching process.stdin would set up Node's stream
// machinery, a few milliseconds of every plugin start (measured, see bench/).
// A non-blocking stdin (EAGAIN) falls back to the stream.
async function readProcessStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const buf = Buffer.allocUnsafe(64 * 1024);
  try {
    for (let n; (n = readSync(0, buf, 0, buf.length, null)) > 0;) chunks.push(Buffer.from(buf.subarray(0, n)));
    return Buffer.concat(chunks);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
  }
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

// Synchronous writes for the same reason as the reads; all of it reaches the fd before
// the process exits. A non-blocking fd (EAGAIN) goes through the stream instead.
function writeFd(fd: 1 | 2, s: string): void {
  const bytes = Buffer.from(s);
  let off = 0;
  try {
    while (off < bytes.length) off += writeSync(fd, bytes, off);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    (fd === 1 ? process.stdout : process.stderr).write(bytes.subarray(off));
  }
}

/** The plugin's entry point: wires the process in and sets process.exitCode. */
export function cniMain(spec: PluginSpec): void {
  const io: PluginIO = {
    program: basename(process.argv[1] ?? ''),
    env: process.env,
    readStdin: readProcessStdin,
    stdout: (s) => writeFd(1, s),
    stderr: (s) => writeFd(2, s),
  };
  // Setting exitCode rather than calling exit() lets stdout drain.
  void runPlugin(spec, io).then((code) => {
    process.exitCode = code;
  });
}
