import t from 'tap';
import { decodeSetElems, encodeGetSetElems, encodeSetElems, MAX_COMMENT_BYTES, setElemDeletes, setElemReplaces } from './nft-set-elems.ts';

t.test('NEWSETELEM payload is what `nft add element inet cni_firewall pods4 { 10.1.2.3 comment "abc" }` sends (strace)', async (t) => {
  // strace -xx of nft 1.0.6: nfgen_family=1 (inet); table "cni_firewall\0" (nla_len 17, padded);
  // set "pods4\0" (nla_len 10, padded); [nla_len 8, type 4 NFTA_SET_ELEM_LIST_SET_ID] 00000001,
  // which nft adds for sets made in the same batch and we leave out; then the nested elements:
  // 1c000180 0c000180 08000100 0a010203 0a000600 00046162 63000000.
  const nft = Buffer.from(
    '01000000' +
      '1100010063' +
      '6e695f6669726577616c6c00' +
      '000000' +
      '0a000200' +
      '706f64733400' +
      '0000' +
      '08000400' +
      '00000001' +
      '20000380' +
      '1c000180' +
      '0c000180' +
      '08000100' +
      '0a010203' +
      '0a000600' +
      '00046162' +
      '63000000',
    'hex',
  );
  const withoutSetId = Buffer.concat([nft.subarray(0, 36), nft.subarray(44)]);
  t.same(encodeSetElems('inet', 'cni_firewall', 'pods4', [{ key: Buffer.from([10, 1, 2, 3]), comment: 'abc' }]), withoutSetId);
});

t.test('several elements, one without a comment, an IPv6 key', async (t) => {
  const out = encodeSetElems('inet', 't', 's', [{ key: Buffer.alloc(16, 1) }, { key: Buffer.from([1, 2, 3, 4]), comment: 'x' }]);
  // elements attribute: header 4 + elem1 (4 + key 4+4+16 = 28) + elem2 (4 + key 12 + userdata 4+4 = 24)
  const elements = out.subarray(4 + 8 + 8);
  t.equal(elements.readUInt16LE(0), 4 + 28 + 24);
  t.equal(elements.readUInt16LE(2), 0x8003, 'NFTA_SET_ELEM_LIST_ELEMENTS, nested');
});

t.test('a comment longer than nft allows is refused before anything is sent', async (t) => {
  t.doesNotThrow(() => encodeSetElems('inet', 't', 's', [{ key: Buffer.alloc(4), comment: 'c'.repeat(MAX_COMMENT_BYTES) }]));
  t.throws(() => encodeSetElems('inet', 't', 's', [{ key: Buffer.alloc(4), comment: 'c'.repeat(MAX_COMMENT_BYTES + 1) }]), RangeError);
});

// The table and set attributes of cni_firewall's pods4, padded: "cni_firewall\0" (nla_len 17), "pods4\0" (nla_len 10).
const TABLE_SET = '11000100' + '636e695f6669726577616c6c00' + '000000' + '0a000200' + '706f64733400' + '0000';

t.test('DELSETELEM payload is what `nft delete element inet cni_firewall pods4 { 10.88.0.6 }` sends (strace)', async (t) => {
  // strace -xx of nft 1.0.6 on Linux 6.18: nfgen_family=1 (inet), the table and the set, then
  // [nla_len 20, NLA_F_NESTED|3] 10000180 0c000180 08000100 0a580006: the key alone.
  const nft = Buffer.from('01000000' + TABLE_SET + '14000380' + '10000180' + '0c000180' + '08000100' + '0a580006', 'hex');
  t.same(encodeSetElems('inet', 'cni_firewall', 'pods4', [{ key: Buffer.from([10, 88, 0, 6]) }]), nft);
  t.same(
    setElemDeletes('inet', 'cni_firewall', [
      { set: 'pods4', keys: [Buffer.from([10, 88, 0, 6])] },
      { set: 'pods6', keys: [] },
    ]),
    [{ msg: 14, flags: 0, payload: nft }],
    'one NFT_MSG_DELSETELEM (14) per set that has keys, flags as nft sends them (NLM_F_REQUEST alone)',
  );
});

t.test('a replace is the batch `nft -f` sends for add, delete, add with the comment (strace: NEWSETELEM CREATE, DELSETELEM, NEWSETELEM CREATE)', async (t) => {
  const key = Buffer.from([10, 88, 0, 6]);
  const bare = encodeSetElems('inet', 'cni_firewall', 'pods4', [{ key }]);
  const commented = encodeSetElems('inet', 'cni_firewall', 'pods4', [{ key, comment: 'abc' }]);
  t.same(
    setElemReplaces('inet', 'cni_firewall', [
      { set: 'pods4', elems: [{ key, comment: 'abc' }] },
      { set: 'pods6', elems: [] },
    ]),
    [
      { msg: 12, flags: 0x400, payload: bare },
      { msg: 14, flags: 0, payload: bare },
      { msg: 12, flags: 0x400, payload: commented },
    ],
    'the key alone is added and deleted, then added with its comment; nothing for a set without elements',
  );
});

t.test('GETSETELEM dump request names the table and the set (nft sends the same two attributes, set first)', async (t) => {
  t.same(encodeGetSetElems('inet', 'cni_firewall', 'pods4'), Buffer.from('01000000' + TABLE_SET, 'hex'));
});

t.test("a dump's elements are decoded with their comments (kernel answer to `nft list set`, strace)", async (t) => {
  // recvmsg -xx, Linux 6.18: NFT_MSG_NEWSETELEM, nfgen_family=1 res_id=htons(2), the table, the
  // set, [nla_len 68, 3] the elements, each 20000100 | key 0c000100 08000100 <addr> | userdata
  // 0e000600 0008 "abc-123\0" (TLV type 0, length 8), not flagged nested as the kernel dumps them.
  const elem = (addr: string, comment: string) =>
    '20000100' + '0c000100' + '08000100' + addr + '0e000600' + '0008' + Buffer.from(`${comment}\0`).toString('hex') + '0000';
  const dump = Buffer.from('01000002' + TABLE_SET + '44000300' + elem('0a580005', 'abc-123') + elem('0a580006', 'abc-456'), 'hex');
  t.same(decodeSetElems(dump), [
    { key: Buffer.from([10, 88, 0, 5]), comment: 'abc-123' },
    { key: Buffer.from([10, 88, 0, 6]), comment: 'abc-456' },
  ]);
  // The dump's last message: the table and the set, an empty list.
  t.same(decodeSetElems(Buffer.from('01000002' + TABLE_SET + '04000300', 'hex')), []);
});

t.test('an element without userdata has no comment; one with another TLV first still finds its comment', async (t) => {
  const key = '0c000100' + '08000100' + '0a000001';
  const bare = Buffer.from('01000000' + TABLE_SET + '14000300' + '10000100' + key, 'hex');
  t.same(decodeSetElems(bare), [{ key: Buffer.from([10, 0, 0, 1]) }]);
  // userdata: TLV type 1 (length 2) then the comment TLV "x\0"
  const mixed = Buffer.from('01000000' + TABLE_SET + '20000300' + '1c000100' + key + '0c000600' + '0102abcd' + '00027800', 'hex');
  t.same(decodeSetElems(mixed), [{ key: Buffer.from([10, 0, 0, 1]), comment: 'x' }]);
  t.same(decodeSetElems(Buffer.from(encodeSetElems('inet', 'a', 'b', [{ key: Buffer.from([1, 2, 3, 4]), comment: 'round trip' }]))), [
    { key: Buffer.from([1, 2, 3, 4]), comment: 'round trip' },
  ]);
});
