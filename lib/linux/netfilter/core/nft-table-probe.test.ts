import t from 'tap';
import { encodeGetTable } from './nft-table-probe.ts';

t.test('GETTABLE payload is what nft sends for `nft list table inet cni_plugins_masquerade` (strace)', async (t) => {
  // strace -e sendto -xx nft list table inet cni_plugins_masquerade: nlmsg_type
  // NFNL_SUBSYS_NFTABLES<<8|NFT_MSG_GETTABLE, then {nfgen_family=1 (NFPROTO_INET), version=0,
  // res_id=0} and [{nla_len=27, nla_type=1}, "cni_plugins_masquerade\0"], padded to 4 bytes.
  const name = Buffer.from('cni_plugins_masquerade\0', 'latin1');
  const expected = Buffer.concat([Buffer.from([1, 0, 0, 0]), Buffer.from([27, 0, 1, 0]), name, Buffer.alloc(1)]);
  t.same(encodeGetTable('inet', 'cni_plugins_masquerade'), expected);
  t.equal(expected.length, 48 - 16, 'nlmsg_len 48 minus the 16-byte netlink header');
});

t.test('families map to their NFPROTO numbers', async (t) => {
  t.equal(encodeGetTable('ip', 'nat')[0], 2);
  t.equal(encodeGetTable('ip6', 'nat')[0], 10);
  t.equal(encodeGetTable('bridge', 'nat')[0], 7);
});
