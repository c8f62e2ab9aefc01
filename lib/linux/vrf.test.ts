// The vrf link request against what iproute2 sends for `ip link add v0 type vrf table 100`,
// captured with strace (the request goes out even where the kernel then answers "Unknown device
// type"): strace -e trace=sendmsg -xx ip link add v0 type vrf table 100.
import t from 'tap';
import { encodeNewVrf, vrfTableOf } from './vrf.ts';
import type { LinkDetail } from './link-detail.ts';

const IPROUTE2 =
  '00000000000000000000000000000000' + // ifinfomsg: AF_UNSPEC, no index, no flags
  '0700030076300000' + // IFLA_IFNAME "v0\0"
  '18001200' + // IFLA_LINKINFO
  '0700010076726600' + //   IFLA_INFO_KIND "vrf" (length 7, no NUL) and a byte of padding
  '0c000200' + //   IFLA_INFO_DATA
  '0800010064000000'; //     IFLA_VRF_TABLE 100

t.test('`ip link add v0 type vrf table 100`', async (t) => {
  t.equal(encodeNewVrf('v0', 100).toString('hex'), IPROUTE2);
});

t.test('a table id above 2^31 travels as an unsigned 32-bit value', async (t) => {
  t.equal(encodeNewVrf('v0', 0xfffffffe).subarray(-4).toString('hex'), 'feffffff');
});

t.test('vrfTableOf reads IFLA_VRF_TABLE of a vrf link only', async (t) => {
  const base: LinkDetail = {
    index: 5,
    name: 'v0',
    up: true,
    operState: 'UP',
    mtu: 65575,
    mac: '',
    promisc: false,
    allmulti: false,
    txqlen: 1000,
    slaveData: [],
    infoData: [],
  };
  const infoData = [{ type: 1, nested: false, value: Buffer.from('e8030000', 'hex') }];
  t.equal(vrfTableOf({ ...base, kind: 'vrf', infoData }), 1000);
  t.equal(vrfTableOf({ ...base, kind: 'bridge', infoData }), undefined);
});
