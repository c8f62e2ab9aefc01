// CHECK (reference cmdCheck, https://github.com/containernetworking/plugins/blob/v1.1.1/plugins/meta/tuning/tuning.go):
// every configured sysctl and attribute has its configured value. Unlike the reference, a key
// with IFNAME is read at the interface it names (the reference reads a file called "IFNAME"
// and fails), and the MAC is compared as an address, not as text.
import { CniError, ErrorCode, type CniRequest } from '../../lib/cni-spec/index.ts';
import { openContainerNetns, readSysctl } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';
import { containerLink } from './link-attrs.ts';

export async function cmdCheck(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  if (!req.prevResult) throw new CniError(ErrorCode.InvalidNetworkConfig, 'Required prevResult missing');
  const pod = openContainerNetns(req);
  try {
    for (const s of conf.sysctls) {
      const cur = readSysctl(pod, s.path);
      if (cur !== s.value) throw new Error(`Error: Tuning configured value of /proc/sys/${s.path} is ${s.value}, current value is ${cur}`);
    }
    const link = await containerLink(pod, req.ifname).catch(() => {
      throw new Error(`Cannot find container link ${req.ifname}`);
    });
    const { ifname } = req;
    if (conf.mac !== undefined && conf.mac !== link.mac)
      throw new Error(`Error: Tuning configured Ethernet of ${ifname} is ${conf.mac}, current value is ${link.mac}`);
    if (conf.promisc !== link.promisc)
      throw new Error(`Error: Tuning link ${ifname} configured promisc is ${conf.promisc}, current value is ${link.promisc ? 1 : 0}`);
    if (conf.mtu !== undefined && conf.mtu !== link.mtu)
      throw new Error(`Error: Tuning configured MTU of ${ifname} is ${conf.mtu}, current value is ${link.mtu}`);
    if (conf.allmulti !== undefined && conf.allmulti !== link.allmulti) {
      throw new Error(`Error: Tuning configured all-multicast mode of ${ifname} is ${conf.allmulti}, current value is ${link.allmulti}`);
    }
    if (conf.txQLen !== undefined && conf.txQLen !== link.txqlen)
      throw new Error(`Error: Tuning configured TxQLen of ${ifname} is ${conf.txQLen}, current value is ${link.txqlen}`);
  } finally {
    pod.close();
  }
}
