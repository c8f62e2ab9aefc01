// firewall: accept rules for a pod's addresses in the FORWARD path, in the backend the config
// names (iptables, nftables, firewalld) or the default. Every entry point validates the target
// again (its tokens are written into rule text) and holds the netfilter lock around its
// read-modify-write, so parallel ADDs for different pods never lose each other's rules.
import { CniError, ErrorCode } from '../../../cni-spec/errors.ts';
import { checkFirewalld, isFirewalldRunning, setupFirewalld, teardownFirewalld, firewalldProblem } from './firewall-firewalld.ts';
import { checkFirewallIptables, setupFirewallIptables, teardownFirewallIptables } from './firewall-iptables.ts';
import { checkFirewallNft, gcFirewallNft, setupFirewallNft, teardownFirewallNft } from './firewall-nft.ts';
import { familiesOf, validateFirewallTarget, type FirewallBackend, type FirewallTarget } from './firewall-spec.ts';
import { withNetfilterLock } from '../core/lock.ts';
import { backendProblem, chooseFirewallBackend, onPath } from '../core/backend.ts';
import { validateNetworkToken } from '../core/validate.ts';

/** The default when the config names none: core/backend.ts's rule, told whether firewalld runs. */
export async function defaultFirewallBackend(): Promise<FirewallBackend> {
  return chooseFirewallBackend(await isFirewalldRunning(), onPath);
}

/** Why `backend` cannot work on this host, or undefined. */
export async function firewallBackendProblem(backend: FirewallBackend): Promise<string | undefined> {
  return backend === 'firewalld' ? firewalldProblem() : backendProblem(backend);
}

/** same-bridge isolates by the bridge's name: ADD and CHECK cannot do without it. */
function requireBridge(t: FirewallTarget): void {
  if (t.ingressPolicy === 'same-bridge' && t.bridge === undefined)
    throw new CniError(ErrorCode.InvalidNetworkConfig, 'same-bridge ingress policy needs the bridge name');
}

export async function setupFirewall(backend: FirewallBackend, t: FirewallTarget): Promise<void> {
  validateFirewallTarget(t);
  if (t.addrs.length === 0) return;
  requireBridge(t);
  if (backend === 'firewalld') return setupFirewalld(t);
  const problem = backendProblem(backend);
  if (problem !== undefined) throw new Error(problem);
  await withNetfilterLock(() => (backend === 'iptables' ? setupFirewallIptables(t) : setupFirewallNft(t)));
}

/**
 * DEL. iptables: the rules of prevResult's addresses (the reference's rule: without prevResult
 * nothing is known, nothing goes). nftables: this attachment's elements, found by their key.
 * A backend whose tools are not installed holds nothing.
 */
export async function teardownFirewall(backend: FirewallBackend, t: FirewallTarget): Promise<void> {
  validateFirewallTarget(t);
  if (backend === 'firewalld') return teardownFirewalld(t);
  if (backendProblem(backend) !== undefined) return;
  if (backend === 'iptables') {
    const families = familiesOf(t);
    if (families.length > 0) await withNetfilterLock(() => teardownFirewallIptables(t, families));
  } else {
    await withNetfilterLock(() => teardownFirewallNft(t));
  }
}

export async function checkFirewall(backend: FirewallBackend, t: FirewallTarget): Promise<void> {
  validateFirewallTarget(t);
  if (t.addrs.length === 0) return;
  requireBridge(t);
  if (backend === 'firewalld') return checkFirewalld(t);
  const problem = backendProblem(backend);
  if (problem !== undefined) throw new Error(problem);
  if (backend === 'iptables') await checkFirewallIptables(t);
  else await checkFirewallNft(t);
}

/** GC: only the nftables elements carry whose they are (iptables rules and firewalld sources name an address alone). */
export async function gcFirewall(network: string, validKeys: ReadonlySet<string>): Promise<void> {
  validateNetworkToken(network);
  if (backendProblem('nftables') !== undefined) return;
  await withNetfilterLock(() => gcFirewallNft(network, validKeys));
}
