// What the multicall binary (the Bun form, runtime/bun-main.ts) does before a program runs:
// find the program by the name the binary was invoked as, and refuse any other name in the
// form a runtime understands.
import { writeSync } from 'node:fs';
import { basename } from 'node:path';
import { CniError, ErrorCode, errorText } from '../lib/cni-spec/errors.ts';
import { goJSON } from '../lib/cni-spec/go-json.ts';
import { BINARY_PROGRAM, isProgramName, PROGRAM_NAMES, type ProgramName } from './programs.ts';

/**
 * argv[0]'s basename; else the executable's own file name, which for a hard link is the link's,
 * unless that is the binary's own name: a starter runs the binary `cni-ts` with the argv[0] it was
 * given, and a name that is no program must be refused, not taken for the installer.
 */
export function invokedAs(): { name: ProgramName } | { unknown: string } {
  const given = basename(process.argv0);
  if (isProgramName(given)) return { name: given };
  const own = basename(process.execPath);
  return isProgramName(own) && own !== BINARY_PROGRAM ? { name: own } : { unknown: given };
}

// Synchronous, like the plugins' own output.
export function writeOut(fd: 1 | 2, text: string): void {
  writeSync(fd, text);
}

/** A code 999 error object on stdout, written as the dispatcher writes every other (lib/cni-spec/dispatch.ts). */
function writeError(msg: string): void {
  writeOut(1, `${goJSON(new CniError(ErrorCode.Internal, msg).toJSON(), '    ')}\n`);
}

/** For what fails before a program's own error handling runs. */
export function failEarly(err: unknown): void {
  writeError(errorText(err));
  process.exitCode = 1;
}

export function refuseName(name: string): void {
  writeOut(2, `cni-ts: "${name}" is not one of this executable's programs; run it as (a link named) one of:\n  ${PROGRAM_NAMES.join('\n  ')}\n`);
  // A runtime that executed us as a plugin reads stdout: give it a CNI error object too.
  if (process.env['CNI_COMMAND'] !== undefined) writeError(`unknown plugin name "${name}"`);
  process.exitCode = 1;
}
