import t from 'tap';
import { decodeCtEntry, encodeCtDelete, encodeCtDumpRequest, AF_INET, ctMsgType, IPCTNL_MSG_CT_DELETE, IPCTNL_MSG_CT_GET } from './conntrack-codec.ts';

// Captured with `strace -xx -e sendto,recvmsg conntrack -D -p udp --orig-port-dst 8080` (conntrack
// 1.4.7) in a netns holding one entry 192.0.2.9:5555 → 192.0.2.1:8080 (udp, unreplied):
// the entry as the kernel dumped it, and the payload of the CT_DELETE conntrack sent for it.
const ORIG = '34000180' + '14000180' + '08000100c0000209' + '08000200c0000201' + '1c000280' + '0500010011000000' + '0600020015b30000' + '060003001f900000';
const REPLY = '34000280' + '14000180' + '08000100c0000201' + '08000200c0000209' + '1c000280' + '0500010011000000' + '060002001f900000' + '0600030015b30000';
const DUMPED =
  '02000000' +
  ORIG +
  REPLY +
  '0800030000000008' +
  '0800080000000000' +
  '08000c002aa68077' +
  '08000b0000000001' +
  '0800070000000063' +
  '1c001880' +
  '080001000000000008000200000000000800030000000000';
const CONNTRACK_DELETE =
  '02000000' + ORIG + REPLY + '0800030000000008' + '0800070000000063' + '0800080000000000' + '1c001880' + '080001000000000008000200000000000800030000000000';

t.test('message types are the ctnetlink subsystem (1) with the message in the low byte', async (t) => {
  t.equal(ctMsgType(IPCTNL_MSG_CT_GET), 0x0101);
  t.equal(ctMsgType(IPCTNL_MSG_CT_DELETE), 0x0102);
  t.equal(encodeCtDumpRequest(AF_INET).toString('hex'), '02000000', 'nfgenmsg: AF_INET, NFNETLINK_V0, res_id 0');
});

t.test('a dumped entry: family, protocol and original destination port', async (t) => {
  const e = decodeCtEntry(Buffer.from(DUMPED, 'hex'))!;
  t.equal(e.family, AF_INET);
  t.equal(e.protocol, 17);
  t.equal(e.dstPort, 8080);
  t.equal(e.zone, undefined);
});

t.test('the delete carries nfgenmsg and the original tuple exactly as conntrack sends them', async (t) => {
  const ours = encodeCtDelete(decodeCtEntry(Buffer.from(DUMPED, 'hex'))!);
  const theirs = Buffer.from(CONNTRACK_DELETE, 'hex');
  // conntrack sends more attributes after the tuple (reply tuple, status, timeout, mark); the
  // kernel finds the entry by the original tuple (and zone) alone.
  t.equal(ours.toString('hex'), theirs.subarray(0, 4 + ORIG.length / 2).toString('hex'));
});

t.test('an entry without a tuple is not decoded, and a delete is never sent without one', async (t) => {
  t.equal(decodeCtEntry(Buffer.from('02000000' + '0800030000000008', 'hex')), undefined);
  t.throws(() => encodeCtDelete({ family: 2, protocol: 17, dstPort: 1, origTuple: Buffer.alloc(0) }), /flush/);
});
