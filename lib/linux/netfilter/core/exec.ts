// Running nft and the iptables tools: argument arrays only (never a shell), the ruleset on
// stdin, one process per transaction. Each spawn costs a few ms and each nft commit ~16 ms,
// so callers batch everything one step needs into a single run.
import { isAbsolute } from 'node:path';
import { findFileIn, type ProgramOutput } from '../../../cni-spec/run-program.ts';
import { timed } from '../../../cni-spec/timing.ts';
import { runToolProgram } from '../../tool-run.ts';

// Runtimes do not always pass PATH to plugins; Go's exec.LookPath would then fail, we look in
// the usual system directories instead.
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** The reference gives nft reads 55 s; a wedged tool must not hang the runtime forever. */
const TIMEOUT_MS = 55_000;

/** A tool the backend needs is not installed. */
export class ToolMissingError extends Error {
  readonly tool: string;
  constructor(tool: string, backend: string) {
    super(`${backend} backend unavailable: "${tool}" not found in PATH`);
    this.name = 'ToolMissingError';
    this.tool = tool;
  }
}

/** A tool ran and failed. The message is the reference's shape: command, exit status, stderr. */
export class ToolError extends Error {
  readonly tool: string;
  readonly args: readonly string[];
  readonly exitCode: number | null;
  readonly stderr: string;
  constructor(
    { tool, args, exitCode, stderr }: { tool: string; args: readonly string[]; exitCode: number | null; stderr: string },
    options?: { cause?: unknown },
  ) {
    const status = exitCode === null ? 'killed' : `exit status ${exitCode}`;
    super(`running [${[tool, ...args].join(' ')}]: ${status}: ${stderr.trim()}`, options);
    this.name = 'ToolError';
    this.tool = tool;
    this.args = args;
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

const found = new Map<string, string | undefined>();

/**
 * Absolute path of `tool` on PATH, or undefined. Cached: a plugin process is short-lived.
 * Relative entries (`.`, `bin`, an empty one) are skipped: they name whatever directory the
 * runtime happened to start us in, and we run as root. Go's exec.LookPath refuses them too
 * (ErrDot, Go 1.19), but fails at the first relative hit where we keep looking.
 */
export function lookPath(tool: string): string | undefined {
  if (found.has(tool)) return found.get(tool);
  const dirs = (process.env['PATH'] || DEFAULT_PATH).split(':').filter((dir) => isAbsolute(dir));
  const hit = findFileIn(dirs, tool, { executable: true });
  found.set(tool, hit);
  return hit;
}

export function requireTool(tool: string, backend: string): string {
  const p = lookPath(tool);
  if (p === undefined) throw new ToolMissingError(tool, backend);
  return p;
}

/** Runs `file args` with `stdin`, resolves to stdout; a non-zero exit rejects with ToolError. */
export async function runTool(file: string, args: readonly string[], stdin = ''): Promise<string> {
  const tool = file.slice(file.lastIndexOf('/') + 1);
  let o: ProgramOutput;
  try {
    o = await timed('netfilter', () => runToolProgram(file, args, stdin, TIMEOUT_MS));
  } catch (e) {
    throw new ToolError({ tool, args, exitCode: null, stderr: (e as Error).message }, { cause: e });
  }
  const stderr = o.stderr.toString();
  if (o.code !== 0) throw new ToolError({ tool, args, exitCode: o.code, stderr });
  return o.stdout.toString();
}
