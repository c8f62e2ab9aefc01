// The dummy link request against what iproute2 sends for `ip link add d0 type dummy` (captured
// with strace): ifinfomsg all zero, IFLA_IFNAME "d0\0", IFLA_LINKINFO { IFLA_INFO_KIND "dummy" }.
import t from 'tap';
import { encodeNewDummy } from './dummy.ts';
import { decodeAttrs } from './nl-codec.ts';

/** type → value hex, nests (IFLA_LINKINFO) descended; IFLA_INFO_KIND's trailing NULs dropped. */
function tree(buf: Buffer, nested = false): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const a of decodeAttrs(buf)) {
    if (!nested && a.type === 18) out['18'] = tree(a.value, true);
    else out[String(a.type)] = nested && a.type === 1 ? a.value.toString('hex').replace(/(00)+$/, '') : a.value.toString('hex');
  }
  return out;
}

t.test('`ip link add d0 type dummy`', async (t) => {
  const ours = encodeNewDummy('d0');
  t.equal(ours.subarray(0, 16).toString('hex'), '00'.repeat(16), 'AF_UNSPEC, no index, no flags');
  // iproute2 sends IFLA_INFO_KIND without its NUL, we with it; the kernel takes both.
  const iproute2 = Buffer.from('0700030064300000' + '10001200' + '0900010064756d6d79000000', 'hex');
  t.same(tree(ours.subarray(16)), tree(iproute2));
  t.equal(ours.length, 16 + 8 + 16, 'nothing else: no MTU, no address, no netns');
});
