// A verb's request, after dispatch.ts has checked the environment: stdin, the config's common
// fields, the version gates, prevResult, then the handler and the rendering of its result.
// Loaded only when a verb runs, so VERSION never pays for JSON schemas (zod) or result conversion.
import { commonConfSchema } from './common-conf.ts';
import { decodeConfig, parseWithSchema } from './config.ts';
import { asCniError, CniError, ErrorCode } from './errors.ts';
import { foldKeys, foldName } from './fold.ts';
import { splitCniPath, validateContainerId, validateIfName, validateNetworkName, netnsOverride } from './env.ts';
import { assertForeignNetns } from './netns-self.ts';
import { parseResult } from './result-parse.ts';
import { renderResult } from './result-convert.ts';
import type { CniRequest, PluginIO, PluginSpec, Verb } from './request.ts';
import type { Result } from './result.ts';
import { DEFAULT_VERSION } from './versions.ts';
import { checkVersion } from './version-gate.ts';
import { timed } from './timing.ts';

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

// DEL is teardown: the chain's runs in reverse order and stops at the first failure, so a DEL
// must not fail on what it does not need. Every DEL of ours works without prevResult (it only
// narrows portmap's families and names bridge's masqueraded addresses when the netns is gone),
// so a prevResult that cannot be read, of any JSON type, is dropped with a note on stderr.
const PREV_RESULT = foldName('prevResult');

function withoutPrevResult(config: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(config).filter(([k]) => foldName(k) !== PREV_RESULT));
}

function prevResultForDel(config: Record<string, unknown>, raw: unknown, version: string): { prevResult?: Result; note?: string } {
  const dropped = (err: unknown) => {
    const e = asCniError(err);
    return { note: `DEL goes on without prevResult, which cannot be read: ${e.msg}${e.details ? ` (${e.details})` : ''}` };
  };
  try {
    parseWithSchema(commonConfSchema, config);
  } catch (err) {
    // Another shared field that is wrong is still an error, as for every verb.
    parseWithSchema(commonConfSchema, withoutPrevResult(config));
    return dropped(err);
  }
  try {
    const prevResult = parsePrevResult(raw, version);
    return prevResult ? { prevResult } : {};
  } catch (err) {
    return dropped(err);
  }
}

function handlerFor(spec: PluginSpec, command: Verb): ((req: CniRequest) => Promise<unknown>) | undefined {
  return { ADD: spec.add, DEL: spec.del, CHECK: spec.check, GC: spec.gc, STATUS: spec.status }[command];
}

/** The text for stdout on success of `verb` ('' for nothing); throws on any failure. */
export async function runVerb(spec: PluginSpec, io: PluginIO, verb: Verb): Promise<string> {
  const env = io.env;
  const stdin = await readStdin(io);
  const parsed = timed('config', () => parseRequest(spec, verb, env, stdin));
  if (parsed === undefined) return '';
  const { handler, req, note } = parsed;
  if (note !== undefined) io.stderr(`${note}\n`);
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
): { handler: (req: CniRequest) => Promise<unknown>; req: CniRequest; note?: string } | undefined {
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
  const forDel = verb === 'DEL' ? prevResultForDel(config, fields.prevResult, version) : undefined;
  if (!forDel) parseWithSchema(commonConfSchema, config);
  const handler = handlerFor(spec, verb);
  // No handler for CHECK/GC/STATUS: the version gates passed, so it is a successful no-op.
  if (handler === undefined) return undefined;

  const prevResult = forDel ? forDel.prevResult : parsePrevResult(fields.prevResult, version);
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
  return { handler, req, ...(forDel?.note !== undefined && { note: forDel.note }) };
}
