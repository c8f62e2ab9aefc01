// native/nl_walk.c, which keeps the messages of one received datagram that answer a request,
// fed datagrams made here: it is compiled with a small driver that reads a buffer on stdin, of
// which only the first `n` bytes are the datagram (what follows stands for memory beyond it).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import t from 'tap';

const NATIVE = resolve(import.meta.dirname, '..', '..', 'native');
const NLMSG_ERROR = 2;
const NLMSG_DONE = 3;
const RTM_NEWLINK = 16;

const DRIVER = `
#include <stdio.h>
#include <stdlib.h>
#include "nl_walk.h"
int main(int argc, char **argv) {
  static char in[65536], out[65536];
  size_t total = fread(in, 1, sizeof in, stdin);
  size_t n = strtoul(argv[1], NULL, 10);
  int done = 0;
  if (argc < 3 || n > total) return 2;
  size_t kept = nl_keep_answer(out, in, n, (uint32_t)strtoul(argv[2], NULL, 10), &done);
  fwrite(out, 1, kept, stdout);
  return done ? 10 : 0;
}
`;

const dir = mkdtempSync(join(tmpdir(), 'cni-nl-walk-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const driver = join(dir, 'walk');
writeFileSync(join(dir, 'driver.c'), DRIVER);
execFileSync('cc', ['-O2', '-Wall', '-Werror', '-I', NATIVE, '-o', driver, join(dir, 'driver.c'), join(NATIVE, 'nl_walk.c')]);

/** A netlink message: header and payload, `len` as given (the payload's length by default), no padding. */
function msg(type: number, seq: number, payload: Buffer, len = 16 + payload.length): Buffer {
  const h = Buffer.alloc(16);
  h.writeUInt32LE(len, 0);
  h.writeUInt16LE(type, 4);
  h.writeUInt32LE(seq, 8);
  return Buffer.concat([h, payload]);
}
const pad = (b: Buffer) => Buffer.concat([b, Buffer.alloc(((b.length + 3) & ~3) - b.length)]);

function walk(datagram: Buffer, beyond: Buffer, seq: number): { kept: Buffer; done: boolean } {
  const r = spawnSync(driver, [String(datagram.length), String(seq)], { input: Buffer.concat([datagram, beyond]) });
  if (r.status !== 0 && r.status !== 10) throw new Error(`driver failed: ${r.status} ${String(r.stderr)}`);
  return { kept: r.stdout, done: r.status === 10 };
}

t.test('the messages answering seq are kept, whole, up to the one that ends the answer', async (t) => {
  const a = pad(msg(RTM_NEWLINK, 7, Buffer.from('abcde')));
  const stale = pad(msg(RTM_NEWLINK, 6, Buffer.from('old')));
  const ack = msg(NLMSG_ERROR, 7, Buffer.alloc(20));
  const r = walk(Buffer.concat([a, stale, ack]), Buffer.alloc(0), 7);
  t.same(r.kept, Buffer.concat([a, ack]), 'both of seq 7, the stale one left out');
  t.equal(r.done, true, 'the ACK ends the answer');
});

t.test('a last message whose padding the datagram lacks ends the walk: nothing past the datagram is read', async (t) => {
  // 21 bytes, aligned to 24: the datagram ends 3 bytes short of the next header's place. Beyond
  // it lies what would pass for an NLMSG_DONE of the same seq, then zeros.
  const last = msg(RTM_NEWLINK, 7, Buffer.from('abcde'));
  const beyond = Buffer.concat([Buffer.alloc(3), msg(NLMSG_DONE, 7, Buffer.alloc(0)), Buffer.alloc(16)]);
  const r = walk(last, beyond, 7);
  t.same(r.kept, last, 'the message itself, and nothing else');
  t.equal(r.done, false, 'the answer is not over');
});

t.test('a length past the end of the datagram stops the walk', async (t) => {
  const a = pad(msg(RTM_NEWLINK, 7, Buffer.from('abcd')));
  const cut = msg(RTM_NEWLINK, 7, Buffer.from('ab'), 400);
  const r = walk(Buffer.concat([a, cut]), Buffer.concat([msg(NLMSG_DONE, 7, Buffer.alloc(0)), Buffer.alloc(400)]), 7);
  t.same(r.kept, a);
  t.equal(r.done, false);
});
