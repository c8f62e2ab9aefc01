import t from 'tap';
import { encodeNewSetElems, MAX_COMMENT_BYTES } from './nft-set-elems.ts';

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
  t.same(encodeNewSetElems('inet', 'cni_firewall', 'pods4', [{ key: Buffer.from([10, 1, 2, 3]), comment: 'abc' }]), withoutSetId);
});

t.test('several elements, one without a comment, an IPv6 key', async (t) => {
  const out = encodeNewSetElems('inet', 't', 's', [{ key: Buffer.alloc(16, 1) }, { key: Buffer.from([1, 2, 3, 4]), comment: 'x' }]);
  // elements attribute: header 4 + elem1 (4 + key 4+4+16 = 28) + elem2 (4 + key 12 + userdata 4+4 = 24)
  const elements = out.subarray(4 + 8 + 8);
  t.equal(elements.readUInt16LE(0), 4 + 28 + 24);
  t.equal(elements.readUInt16LE(2), 0x8003, 'NFTA_SET_ELEM_LIST_ELEMENTS, nested');
});

t.test('a comment longer than nft allows is refused before anything is sent', async (t) => {
  t.doesNotThrow(() => encodeNewSetElems('inet', 't', 's', [{ key: Buffer.alloc(4), comment: 'c'.repeat(MAX_COMMENT_BYTES) }]));
  t.throws(() => encodeNewSetElems('inet', 't', 's', [{ key: Buffer.alloc(4), comment: 'c'.repeat(MAX_COMMENT_BYTES + 1) }]), RangeError);
});
