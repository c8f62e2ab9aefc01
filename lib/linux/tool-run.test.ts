// The Node form's tool runs (native/spawn.c through tool-run.ts) keep runProgram's contract:
// the input on stdin, stdout and stderr apart and whole, the exit status, a signal, the
// timeout, a tool that cannot start. Real processes (sh), no root needed.
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runToolProgram } from './tool-run.ts';

const sh = (script: string, stdin = '', timeoutMs = 10_000) => runToolProgram('/bin/sh', ['-c', script], stdin, timeoutMs);

t.test('stdin whole, stdout and stderr apart, the exit code', async (t) => {
  const input = 'line 1\nline 2\n'.repeat(20_000); // 280 KB: more than a pipe holds
  const o = await sh('wc -c; echo oops >&2; exit 3', input);
  t.equal(o.stdout.toString().trim(), String(input.length));
  t.equal(o.stderr.toString(), 'oops\n');
  t.equal(o.code, 3);
  t.equal(o.signal, null);
});

t.test('more output than a pipe holds, with nothing read until the end', async (t) => {
  const o = await sh('head -c 300000 /dev/zero');
  t.equal(o.stdout.length, 300_000);
  t.equal(o.code, 0);
});

t.test('the arguments reach the tool as given, never through a shell', async (t) => {
  const o = await runToolProgram('/bin/echo', ['a b', '$HOME', ';', '*'], '', 10_000);
  t.equal(o.stdout.toString(), 'a b $HOME ; *\n');
});

t.test('a tool killed by a signal, and one that outlives the timeout (SIGTERM)', async (t) => {
  const killed = await sh('kill -KILL $$');
  t.same([killed.code, killed.signal], [null, 'SIGKILL']);
  const started = Date.now();
  const slow = await sh('sleep 5', '', 200);
  t.same([slow.code, slow.signal], [null, 'SIGTERM']);
  t.ok(Date.now() - started < 4000, 'it did not run to its end');
});

t.test('SIGPIPE is at its default in the tool, though Node ignores it', async (t) => {
  const o = await runToolProgram('/bin/grep', ['SigIgn', '/proc/self/status'], '', 10_000);
  const ignored = BigInt(`0x${/SigIgn:\s*([0-9a-f]+)/.exec(o.stdout.toString())?.[1] ?? 'ffff'}`);
  t.equal(ignored & (1n << 12n), 0n, 'SIGPIPE (13) is not ignored');
});

t.test('a tool that cannot start rejects, as runProgram does', async (t) => {
  await t.rejects(runToolProgram('/nonexistent/tool', [], '', 1000), { syscall: 'posix_spawn', code: 'ENOENT' });
  const dir = mkdtempSync(join(tmpdir(), 'cnits-tool-run-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'tool'), '#!/bin/sh\n', { mode: 0o644 });
  await t.rejects(runToolProgram(join(dir, 'tool'), [], '', 1000), { syscall: 'posix_spawn', code: 'EACCES' }, 'not executable');
});

t.test('work queued before the tool started runs before the wait blocks', async (t) => {
  // bridge DEL: it queues its next turn, the masquerade teardown starts its tool from a promise
  // callback, then the next turn sends the veth's removal, which blocks the thread.
  const order: string[] = [];
  const nextTurn = new Promise((resolve) => setImmediate(resolve));
  const run = Promise.resolve()
    .then(() => sh('sleep 0.3'))
    .then(() => order.push('tool done'));
  await nextTurn;
  order.push('next turn');
  await run;
  t.same(order, ['next turn', 'tool done']);
});
