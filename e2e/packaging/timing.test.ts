// CNI_TIMING=1 through the built executables: one `cni-timing` line on stderr with the verb's
// phases, and stdout exactly what it is without (the result, or the error object).
import t from 'tap';
import { parseTiming } from '../../lib/cni-spec/timing.ts';
import { bridgeConf } from '../helpers/bridge-net.ts';
import { makeNetns } from '../helpers/netns.ts';
import { BASE_ENV, execPlugin, tempDir, type PluginRun } from '../helpers/plugins.ts';
import { ipJson, needsRoot } from '../../test-support/sh.ts';

const TIMING_ENV = { ...BASE_ENV, CNI_TIMING: '1' };

function timingLines(r: PluginRun): NonNullable<ReturnType<typeof parseTiming>>[] {
  return r.stderr.split('\n').flatMap((l) => {
    const p = parseTiming(l);
    return p ? [p] : [];
  });
}

t.test('bridge ADD and DEL with CNI_TIMING=1: a result on stdout, their phases on stderr', { skip: needsRoot }, async (t) => {
  const node = await makeNetns(t, 'timing-node');
  const pod = await makeNetns(t, 'timing-pod');
  const conf = bridgeConf({ dataDir: tempDir(t), bridgeFields: { isGateway: true, ipMasq: true } });
  const args = { containerId: 'timing-1', netns: pod.path, ifname: 'eth0', nodeNetns: node.name };

  const add = await execPlugin('bridge', { ...args, command: 'ADD', baseEnv: TIMING_ENV }, conf);
  t.equal(add.code, 0, add.stderr);
  t.match(add.json, { cniVersion: '1.0.0', ips: [{ address: /^10\.244\.0\.\d+\/24$/ }] }, 'stdout is the result');
  const [line, ...more] = timingLines(add);
  t.same(more, [], 'one line');
  t.match(line, { plugin: 'bridge', verb: 'ADD' });
  const ms = line?.ms ?? {};
  for (const f of ['startup', 'config', 'netlink', 'sysctl', 'netfilter', 'ipam', 'wait', 'other', 'total']) t.type(ms[f], 'number', `${f} reported`);
  t.ok((ms['netlink'] ?? 0) > 0, 'the veth and addresses took netlink time');
  t.ok((ms['netfilter'] ?? 0) > 0, 'ipMasq took netfilter time');
  t.ok((ms['ipam'] ?? 0) > 0, 'host-local (in-process) took IPAM time');
  t.ok((ms['startup'] ?? 0) > 0 && (ms['startup'] ?? 0) < (ms['total'] ?? 0), 'start-up is part of the total');
  const [eth0] = await ipJson<{ ifname: string }[]>(pod.name, ['link', 'show', 'eth0']);
  t.equal(eth0?.ifname, 'eth0', 'and the work was done');

  const del = await execPlugin('bridge', { ...args, command: 'DEL', baseEnv: TIMING_ENV }, conf);
  t.equal(del.code, 0, del.stderr);
  t.equal(del.stdout, '', 'DEL prints nothing on stdout');
  t.match(timingLines(del), [{ plugin: 'bridge', verb: 'DEL' }]);
});

t.test('without CNI_TIMING: no timing line, and the same stdout', { skip: needsRoot }, async (t) => {
  const pod = await makeNetns(t, 'timing-lo');
  const conf = { cniVersion: '1.0.0', name: 'lo-net', type: 'loopback' };
  const args = { command: 'ADD', containerId: 'timing-2', netns: pod.path, ifname: 'eth0' } as const;
  const on = await execPlugin('loopback', { ...args, baseEnv: TIMING_ENV }, conf);
  const off = await execPlugin('loopback', { ...args, baseEnv: BASE_ENV }, conf);
  t.equal(on.code, 0);
  t.equal(off.code, 0);
  t.equal(on.stdout, off.stdout, 'stdout is the same result');
  t.equal(off.stderr, '', 'off: stderr is empty');
  t.match(timingLines(on), [{ plugin: 'loopback', verb: 'ADD' }]);
});

t.test('a failing verb: the CNI error object on stdout, the timing line still on stderr', { skip: needsRoot }, async (t) => {
  const conf = { cniVersion: '1.0.0', name: 'bad', type: 'bridge', mtu: 'large' };
  const r = await execPlugin('bridge', { command: 'ADD', containerId: 'timing-3', netns: '/run/netns/none', ifname: 'eth0', baseEnv: TIMING_ENV }, conf);
  t.equal(r.code, 1);
  t.match(r.json, { code: 7 }, 'the config error');
  t.match(timingLines(r), [{ plugin: 'bridge', verb: 'ADD' }]);
});
