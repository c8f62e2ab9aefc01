// Running nft and the iptables tools in the Node form through our addon (native/spawn.c)
// rather than node:child_process. A first child_process run in a fresh Node process loads its
// modules, fork()s the whole process and sets up a stream per pipe: 10-20 ms of the main
// thread, measured in bridge DEL, which could only send the veth's removal (and block in the
// kernel's grace period) once that was done, so the masquerade tool no longer overlapped it.
// posix_spawn returns as soon as the tool runs; the input is already all there (a memory file
// on stdin), and the wait comes one event-loop turn later, after the work queued meanwhile.
// Bun keeps its own spawn (run-program.ts), which is as cheap.
import { closeSync, fstatSync, readSync } from 'node:fs';
import { constants } from 'node:os';
import { runProgram, type ProgramOutput } from '../cni-spec/run-program.ts';
import { bunRuntime } from '../cni-spec/bun-runtime.ts';
import { spawnStart, spawnWait } from './addon.ts';

/** runProgram's contract (resolves with any exit status, rejects only when the tool could not start), for nft and iptables. */
export async function runToolProgram(file: string, args: readonly string[], stdin: string, timeoutMs: number): Promise<ProgramOutput> {
  if (bunRuntime) return runProgram(file, args, stdin, { timeoutMs });
  let child: ReturnType<typeof spawnStart>;
  try {
    child = spawnStart(file, args, Buffer.from(stdin));
  } catch (err) {
    // No memory file (a kernel before 3.17, fds exhausted): the slower way still works.
    if ((err as { syscall?: string }).syscall !== 'posix_spawn') return runProgram(file, args, stdin, { timeoutMs });
    throw err;
  }
  try {
    await new Promise((resolve) => setImmediate(resolve));
    const { code, signal } = spawnWait(child.pid, timeoutMs);
    return {
      code: signal === 0 ? code : null,
      signal: signal === 0 ? null : signalName(signal),
      stdout: readWhole(child.stdoutFd),
      stderr: readWhole(child.stderrFd),
    };
  } finally {
    closeSync(child.stdoutFd);
    closeSync(child.stderrFd);
  }
}

/** What the tool wrote: the fd's file offset is at its end (the child shared it), so read from 0. */
function readWhole(fd: number): Buffer {
  const size = fstatSync(fd).size;
  const buf = Buffer.allocUnsafe(size);
  let off = 0;
  while (off < size) {
    const n = readSync(fd, buf, off, size - off, off);
    if (n === 0) break;
    off += n;
  }
  return buf.subarray(0, off);
}

function signalName(signal: number): NodeJS.Signals {
  const found = Object.entries(constants.signals).find(([, n]) => n === signal);
  return (found?.[0] ?? `SIG${signal}`) as NodeJS.Signals;
}
