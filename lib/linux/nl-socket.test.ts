// The transport's JS half against a fake kernel: framing, sequence numbers, answers, errors,
// interrupted dumps. The real socket is exercised by e2e/linux/linux-layer.test.ts.
import t from 'tap';
import { DUMP_ATTEMPTS, encodeRequest, NlSocket, parseAnswer, type NlIo } from './nl-socket.ts';
import { nl, NetlinkError } from './netlink-error.ts';
import { genidAttr } from './netfilter/core/nfnl.ts';

const NLMSG_ERROR = 2;
const NLMSG_DONE = 3;
const NLM_F_MULTI = 0x2;
const NLM_F_DUMP_INTR = 0x10;

function msg(type: number, flags: number, seq: number, data: Buffer): Buffer {
  const len = 16 + data.length;
  const out = Buffer.alloc((len + 3) & ~3);
  out.writeUInt32LE(len, 0);
  out.writeUInt16LE(type, 4);
  out.writeUInt16LE(flags, 6);
  out.writeUInt32LE(seq, 8);
  out.writeUInt32LE(4242, 12);
  data.copy(out, 16);
  return out;
}
const int32 = (n: number) => Buffer.from(new Int32Array([n]).buffer);
const ack = (seq: number, errno = 0) => msg(NLMSG_ERROR, 0, seq, Buffer.concat([int32(-errno), Buffer.alloc(16)]));
const done = (seq: number, errno = 0) => msg(NLMSG_DONE, NLM_F_MULTI, seq, int32(-errno));

/** A kernel that answers each request with what `reply(seq, request, n)` returns. */
function fakeKernel(reply: (seq: number, request: Buffer, n: number) => Buffer): { io: NlIo; sent: Buffer[]; closed: number[] } {
  const sent: Buffer[] = [];
  const closed: number[] = [];
  const io: NlIo = {
    send: (_fd, bytes) => void sent.push(Buffer.from(bytes)),
    receive: (_fd, seq) => reply(seq, sent.at(-1)!, sent.length),
    close: (fd) => void closed.push(fd),
  };
  return { io, sent, closed };
}

t.test('a request is one message: header with REQUEST|ACK, then the payload parts', async (t) => {
  const b = encodeRequest(16, 0x400, 7, [Buffer.from([1, 2, 3]), Buffer.from([4])]);
  t.same([...b], [20, 0, 0, 0, 16, 0, 0x05, 0x04, 7, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4]);
});

t.test('answers: data without the ACK or DONE, errors as NetlinkError', async (t) => {
  const link = msg(16, 0, 1, Buffer.from([9, 9, 9, 9]));
  t.same(
    parseAnswer(Buffer.concat([link, ack(1)])).messages.map((m) => [m.type, [...m.data]]),
    [[16, [9, 9, 9, 9]]],
    'a GET: the object, then the ACK',
  );
  t.same(parseAnswer(ack(1)).messages, [], 'a plain ACK: no messages');
  const dump = parseAnswer(Buffer.concat([msg(16, NLM_F_MULTI, 1, Buffer.alloc(4)), msg(16, NLM_F_MULTI, 1, Buffer.alloc(8)), done(1)]));
  t.equal(dump.messages.length, 2, 'a dump: every part, DONE removed');
  t.equal(dump.interrupted, false);
  t.throws(() => parseAnswer(ack(1, 17)), { name: 'NetlinkError', errno: 17, code: 'EEXIST', message: 'file exists', op: '' });
  t.throws(() => parseAnswer(Buffer.concat([msg(16, NLM_F_MULTI, 1, Buffer.alloc(4)), done(1, 16)])), { code: 'EBUSY' }, 'a dump that failed midway');
  t.throws(() => parseAnswer(Buffer.from([200, 0, 0, 0, 16, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0])), { name: 'NetlinkError', message: /malformed/ });
});

t.test('each request gets the next sequence number and the answer to it', async (t) => {
  const k = fakeKernel((seq) => Buffer.concat([msg(16, 0, seq, int32(seq)), ack(seq)]));
  const sock = new NlSocket(5, k.io);
  const first = sock.request(18, Buffer.alloc(16));
  const second = sock.request(18, Buffer.alloc(16));
  t.same([first[0]?.data.readInt32LE(0), second[0]?.data.readInt32LE(0)], [1, 2]);
  t.same(
    k.sent.map((b) => b.readUInt32LE(8)),
    [1, 2],
  );
  sock.close();
  sock.close();
  t.same(k.closed, [5], 'closed once');
  t.throws(() => sock.request(18, Buffer.alloc(0)), { name: 'NetlinkError', message: 'Netlink socket is closed' });
});

t.test('a dump the kernel marks interrupted is asked again', async (t) => {
  const k = fakeKernel((seq, _req, n) => Buffer.concat([msg(16, NLM_F_MULTI | (n < 3 ? NLM_F_DUMP_INTR : 0), seq, int32(n)), done(seq)]));
  const sock = new NlSocket(5, k.io);
  const got = sock.request(18, Buffer.alloc(16), 0x300);
  t.equal(k.sent.length, 3, 'sent until an answer came whole');
  t.equal(got[0]?.data.readInt32LE(0), 3, 'the whole answer is returned');
  t.same(
    k.sent.map((b) => b.readUInt32LE(8)),
    [1, 2, 3],
    'each try is a new request',
  );
});

t.test('a dump interrupted every time fails with EINTR', async (t) => {
  const k = fakeKernel((seq) => Buffer.concat([msg(16, NLM_F_MULTI | NLM_F_DUMP_INTR, seq, int32(0)), done(seq)]));
  const sock = new NlSocket(5, k.io);
  await t.rejects(
    nl('RTM_GETLINK', () => sock.request(18, Buffer.alloc(16), 0x300)),
    { name: 'NetlinkError', errno: 4, code: 'EINTR', op: 'RTM_GETLINK' },
  );
  t.equal(k.sent.length, DUMP_ATTEMPTS);
});

t.test('nl() names the request a kernel error came from', async (t) => {
  const k = fakeKernel((seq) => ack(seq, 19));
  const sock = new NlSocket(5, k.io);
  const err = await nl('RTM_DELLINK', () => sock.request(17, Buffer.alloc(16))).catch((e: unknown) => e);
  t.ok(err instanceof NetlinkError);
  t.match(err, { op: 'RTM_DELLINK', code: 'ENODEV', errno: 19, message: 'no such device' });
});

t.test('a batch: BEGIN, the messages, END back to back in one send, one sequence number, the ACK asked of the last', async (t) => {
  const k = fakeKernel((seq) => ack(seq));
  const sock = new NlSocket(3, k.io);
  sock.batch(10, [
    { type: (10 << 8) | 12, flags: 0x400, payload: Buffer.from([1, 0, 0, 0, 5, 0, 1, 0, 0x61, 0, 0, 0]) },
    { type: (10 << 8) | 12, flags: 0x400, payload: Buffer.from([1, 0, 0, 0, 6, 0, 1, 0, 0x62, 0x63]) },
  ]);
  t.equal(k.sent.length, 1, 'one send');
  const parts = parseAnswer(k.sent[0]!).messages;
  t.same(
    parts.map((m) => [m.type, m.flags, m.seq]),
    [
      [0x10, 0x1, 1],
      [0x0a0c, 0x401, 1],
      [0x0a0c, 0x405, 1],
      [0x11, 0x1, 1],
    ],
    'NFNL_MSG_BATCH_BEGIN, two NEWSETELEM (REQUEST|CREATE, the last with ACK), NFNL_MSG_BATCH_END',
  );
  t.same([...parts[0]!.data], [0, 0, 0, 10], 'BEGIN names the subsystem in res_id, big endian');
  t.same([...parts[3]!.data], [0, 0, 0, 10], 'and END too');
  t.same([...parts[2]!.data.subarray(0, 10)], [1, 0, 0, 0, 6, 0, 1, 0, 0x62, 0x63], "the second message's payload, padded before END");
});

t.test('a batch the kernel refuses throws its error; an empty batch sends nothing', async (t) => {
  const k = fakeKernel((seq) => ack(seq, 2));
  const sock = new NlSocket(3, k.io);
  t.throws(() => sock.batch(10, [{ type: (10 << 8) | 12, flags: 0x400, payload: Buffer.alloc(4) }]), { name: 'NetlinkError', code: 'ENOENT' });
  sock.batch(10, []);
  t.equal(k.sent.length, 1, 'the empty batch was not sent');
});

t.test("a batch's begin carries the attributes given (NFNL_BATCH_GENID)", async (t) => {
  const k = fakeKernel((seq) => ack(seq));
  const sock = new NlSocket(3, k.io);
  sock.batch(10, [{ type: (10 << 8) | 6, flags: 0xc00, payload: Buffer.from([2, 0, 0, 0]) }], 'NFT_MSG_NEWRULE', genidAttr(0x01020304));
  const begin = parseAnswer(k.sent[0]!).messages[0]!;
  t.same([...begin.data], [0, 0, 0, 10, 8, 0, 1, 0, 1, 2, 3, 4], 'res_id, then [len 8, type 1] and the generation big endian');
});
