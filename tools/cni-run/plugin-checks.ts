// What `cni-run validate` knows about each of our plugins: the config loader the plugin itself
// runs before it touches anything (so a config passes validate exactly when the plugin would
// accept it: there is no second copy of any schema), the capabilities it reads from
// runtimeConfig, and whether it must follow another plugin in a list.
import type { CniRequest } from '../../lib/cni-spec/index.ts';
import { loadHostLocalConf } from '../../lib/ipam/host-local-conf.ts';
import { loadStaticConf } from '../../lib/ipam/static-conf.ts';
import { loadConf as loadBandwidthConf } from '../../plugins/bandwidth/conf.ts';
import { loadConf as loadBridgeConf } from '../../plugins/bridge/conf.ts';
import { loadConf as loadFirewallConf } from '../../plugins/firewall/conf.ts';
import { loadConf as loadPortmapConf } from '../../plugins/portmap/conf.ts';
import { loadConf as loadPtpConf } from '../../plugins/ptp/conf.ts';
import { loadConf as loadTuningConf } from '../../plugins/tuning/conf.ts';

export interface PluginCheck {
  /** throws the CniError the plugin would print (code 7 with the field paths in details) */
  readonly load: (req: CniRequest) => void;
  /** the runtimeConfig keys it reads, i.e. the capabilities it is worth declaring */
  readonly capabilities: readonly string[];
  /** it works on a previous plugin's result (prevResult), so it cannot come first */
  readonly chained: boolean;
  /** it delegates addresses to the IPAM plugin named in `ipam.type` */
  readonly usesIpam: boolean;
  /** it is an IPAM plugin (checked in the `ipam` section of the plugin that delegates to it) */
  readonly isIpam: boolean;
}

const plain = { chained: false, usesIpam: false, isIpam: false } as const;

export const PLUGIN_CHECKS: Readonly<Record<string, PluginCheck>> = {
  // bridge's ADD refuses a few combinations its DEL accepts; a config is judged as ADD sees it.
  bridge: { ...plain, load: (req) => void loadBridgeConf(req, { forAdd: true }), capabilities: ['mac'], usesIpam: true },
  // loopback reads nothing beyond the fields every plugin shares.
  loopback: { ...plain, load: () => {}, capabilities: [] },
  portmap: { ...plain, load: (req) => void loadPortmapConf(req), capabilities: ['portMappings'], chained: true },
  bandwidth: { ...plain, load: (req) => void loadBandwidthConf(req), capabilities: ['bandwidth'], chained: true },
  firewall: { ...plain, load: (req) => void loadFirewallConf(req), capabilities: [], chained: true },
  ptp: { ...plain, load: (req) => void loadPtpConf(req), capabilities: [], usesIpam: true },
  tuning: { ...plain, load: (req) => void loadTuningConf(req), capabilities: ['mac'], chained: true },
  'host-local': { ...plain, load: (req) => void loadHostLocalConf(req), capabilities: ['ips', 'ipRanges'], isIpam: true },
  static: { ...plain, load: (req) => void loadStaticConf(req), capabilities: ['ips'], isIpam: true },
};
