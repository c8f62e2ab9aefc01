import t from 'tap';
import { chooseFirewallBackend, chooseRuleBackend, ruleBackendProblem } from './backend.ts';

const node =
  (...tools: string[]) =>
  (tool: string) =>
    tools.includes(tool);
const IPT4 = ['iptables-save', 'iptables-restore'];
const IPT6 = ['ip6tables-save', 'ip6tables-restore'];

t.test('default: iptables unless IPv4 iptables is missing and nft is there', async (t) => {
  t.equal(chooseRuleBackend(node(...IPT4, ...IPT6, 'nft')), 'iptables', 'everything installed');
  t.equal(chooseRuleBackend(node(...IPT4)), 'iptables', 'iptables only');
  t.equal(chooseRuleBackend(node('nft')), 'nftables', 'nft only');
  t.equal(chooseRuleBackend(node(...IPT6, 'nft')), 'nftables', 'ip6tables does not count for the default');
  t.equal(chooseRuleBackend(node('iptables-save', 'nft')), 'nftables', 'iptables-save without -restore is no iptables');
  t.equal(chooseRuleBackend(node()), 'iptables', 'neither: iptables, whose setup names the missing tool');
});

t.test('firewall: firewalld when it runs, whatever the tools; else the same default', async (t) => {
  t.equal(chooseFirewallBackend(true, node()), 'firewalld');
  t.equal(chooseFirewallBackend(true, node('nft')), 'firewalld');
  t.equal(chooseFirewallBackend(false, node('nft')), 'nftables');
  t.equal(chooseFirewallBackend(false, node(...IPT4, 'nft')), 'iptables');
});

t.test('a named backend: the problem names the missing tool; either iptables family will do', async (t) => {
  t.equal(ruleBackendProblem('nftables', node('nft')), undefined);
  t.equal(ruleBackendProblem('nftables', node(...IPT4)), 'nftables backend unavailable: "nft" not found in PATH');
  t.equal(ruleBackendProblem('iptables', node(...IPT4)), undefined);
  t.equal(ruleBackendProblem('iptables', node(...IPT6)), undefined);
  t.equal(
    ruleBackendProblem('iptables', node('iptables-save', 'ip6tables-restore', 'nft')),
    'iptables backend unavailable: neither iptables nor ip6tables (-save, -restore) found in PATH',
  );
});
