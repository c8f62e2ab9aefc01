// portmap beyond the traffic paths: no mappings means no netfilter work at all, stale UDP
// conntrack entries go on ADD and on DEL, parallel ADDs lose no rule, bad config changes nothing.
import t from 'tap';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execRaw, pluginEnv } from '../../tools/libcni/invoke.ts';
import { attachment } from '../helpers/conflist.ts';
import { DIST_BIN, execPlugin } from '../helpers/plugins.ts';
import { BACKENDS, portmapList, portmapRulesOf, startNamedServer, tcpAnswer, udpAnswer, udpConntrackTo } from '../helpers/portmap.ts';
import { needsRoot, nsExec } from '../../test-support/sh.ts';
import { makePod, makeTopology, UPLINK } from '../helpers/topology.ts';

const prevResult = {
  cniVersion: '1.0.0',
  interfaces: [{ name: 'eth0', sandbox: '/run/netns/nowhere' }],
  ips: [{ address: '10.244.0.9/24', gateway: '10.244.0.1', interface: 0 }],
};

t.test('no mappings: prevResult out unchanged, and no nft or iptables is ever started', { skip: needsRoot }, async (t) => {
  const { node } = await makeTopology(t);
  const emptyBin = mkdtempSync(join(tmpdir(), 'cnits-nopath-'));
  t.teardown(() => rmSync(emptyBin, { recursive: true, force: true }));
  // Only node itself (the executables start it through PATH: scripts/build/build.ts).
  symlinkSync(process.execPath, join(emptyBin, 'node'));
  const run = (command: 'ADD' | 'CHECK' | 'DEL', conf: object) => {
    // PATH holds no netfilter tool: starting nft or iptables-restore would fail.
    const env = pluginEnv({ command, cniPath: [DIST_BIN], baseEnv: { PATH: emptyBin }, containerId: 'nomap', netns: '/run/netns/nowhere', ifname: 'eth0' });
    return execRaw(join(DIST_BIN, 'portmap'), env, JSON.stringify(conf), ['/usr/sbin/ip', 'netns', 'exec', node.name]);
  };
  for (const backend of [undefined, ...BACKENDS]) {
    const conf = { cniVersion: '1.0.0', name: 'podnet', type: 'portmap', ...(backend && { backend }), prevResult };
    const add = await run('ADD', conf);
    t.equal(add.code, 0, `ADD (${backend ?? 'default'} backend) succeeds ${add.stdout}${add.stderr}`);
    t.same(JSON.parse(add.stdout), prevResult, 'ADD prints prevResult unchanged');
    t.equal((await run('CHECK', conf)).code, 0, 'CHECK succeeds');
    t.equal((await run('DEL', { ...conf, runtimeConfig: { portMappings: [] } })).code, 0, 'DEL succeeds');
    const old = await run('ADD', {
      ...conf,
      cniVersion: '0.3.1',
      prevResult: { ...prevResult, cniVersion: '0.3.1', ips: [{ ...prevResult.ips[0], version: '4' }] },
    });
    t.equal(JSON.parse(old.stdout).ips[0].version, '4', 'an 0.3.1 prevResult comes back in 0.3.1');
  }
  // Control: the same PATH with a mapping does need the tools, so the runs above proved something.
  const withMapping = {
    cniVersion: '1.0.0',
    name: 'podnet',
    type: 'portmap',
    backend: 'nftables',
    runtimeConfig: { portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }] },
    prevResult,
  };
  const failed = await run('ADD', withMapping);
  t.not(failed.code, 0, 'with a mapping and no nft on PATH, ADD fails');
  t.match(failed.stdout, /nft/, 'naming nft');
});

for (const backend of BACKENDS) {
  t.test(`${backend}: stale UDP conntrack entries to the host port go on ADD and on DEL`, { skip: needsRoot }, async (t) => {
    const { node, remote, dataDir } = await makeTopology(t, { remote: true });
    const pod = await makePod(t);
    const portMappings = [{ hostPort: 8081, containerPort: 81, protocol: 'udp' }];
    const a = attachment(
      portmapList({ dataDir, backend }),
      { containerId: `pmct-${backend}-${process.pid}`, netns: pod.path, ifname: 'eth0', capabilityArgs: { portMappings } },
      { nodeNetns: node.name },
    );
    // Another pod's mapping stays all along, as on a real node: nftables enables conntrack in a
    // netns only while some NAT rule exists, and without conntrack nothing can go stale.
    const other = await makePod(t);
    const b = attachment(
      portmapList({ dataDir, backend }),
      {
        containerId: `pmct2-${backend}-${process.pid}`,
        netns: other.path,
        ifname: 'eth0',
        capabilityArgs: { portMappings: [{ hostPort: 9999, containerPort: 80, protocol: 'tcp' }] },
      },
      { nodeNetns: node.name },
    );
    await b.add();
    await a.add();
    await startNamedServer(t, pod.name, 'pod', { tcp: 80, udp: 81 });
    t.equal(await udpAnswer(remote!.name, UPLINK.nodeV4, 8081), 'pod', 'UDP through the hostPort');
    t.ok((await udpConntrackTo(node.name, 8081)).length > 0, 'control: the flow has a conntrack entry');
    await a.del();
    t.same(await udpConntrackTo(node.name, 8081), [], 'DEL removed it (the reference keeps it, plugins#1190)');
    // Without the mapping a server on the node itself answers: its flow is what would go stale.
    await startNamedServer(t, node.name, 'node', { tcp: 18081, udp: 8081 });
    t.equal(await udpAnswer(remote!.name, UPLINK.nodeV4, 8081, 40000), 'node', 'without the mapping the node answers');
    t.ok((await udpConntrackTo(node.name, 8081)).length > 0, 'control: that flow has a conntrack entry');
    await a.add();
    t.same(await udpConntrackTo(node.name, 8081), [], 'ADD removed it…');
    t.equal(
      await udpAnswer(remote!.name, UPLINK.nodeV4, 8081, 40000),
      'pod',
      '…so the same flow (same source port) now meets the new rules and reaches the pod',
    );
    await a.del();
    await b.del();
  });

  t.test(`${backend}: parallel ADDs of many pods lose no rule, parallel DELs leave none`, { skip: needsRoot }, async (t) => {
    const { node, remote, dataDir } = await makeTopology(t, { remote: true });
    const count = 8;
    const pods = await Promise.all(Array.from({ length: count }, () => makePod(t)));
    const list = portmapList({ dataDir, backend });
    const as = pods.map((p, i) =>
      attachment(
        list,
        {
          containerId: `pmpar-${backend}-${i}-${process.pid}`,
          netns: p.path,
          ifname: 'eth0',
          capabilityArgs: { portMappings: [{ hostPort: 9000 + i, containerPort: 80, protocol: 'tcp' }] },
        },
        { nodeNetns: node.name },
      ),
    );
    await Promise.all(as.map((a) => a.add()));
    const checks = await Promise.allSettled(as.map((a) => a.check()));
    t.same(
      checks.filter((c) => c.status === 'rejected'),
      [],
      'CHECK passes for every pod',
    );
    await Promise.all(pods.map((p, i) => startNamedServer(t, p.name, `pod${i}`, { tcp: 80, udp: 81 })));
    for (let i = 0; i < count; i++) t.equal(await tcpAnswer(remote!.name, UPLINK.nodeV4, 9000 + i), `pod${i}`, `hostPort ${9000 + i} reaches pod${i}`);
    await Promise.all(as.map((a) => a.del()));
    for (const [i, a] of as.entries()) t.same(await portmapRulesOf(node.name, 'podnet', a.conf.containerId), [], `nothing left of pod${i}`);
  });
}

t.test('a bad config is code 7 naming the field, and changes nothing', { skip: needsRoot }, async (t) => {
  const { node } = await makeTopology(t);
  const base = { cniVersion: '1.0.0', name: 'podnet', type: 'portmap', prevResult };
  const ok = { hostPort: 8080, containerPort: 80, protocol: 'tcp' };
  const cases: [string, object, string, string][] = [
    ['host port 0', { runtimeConfig: { portMappings: [{ ...ok, hostPort: 0 }] } }, 'Invalid host port number: 0', 'runtimeConfig.portMappings[0].hostPort'],
    [
      'host port 70000',
      { runtimeConfig: { portMappings: [{ ...ok, hostPort: 70000 }] } },
      'Invalid host port number: 70000',
      'runtimeConfig.portMappings[0].hostPort',
    ],
    [
      'container port -1',
      { runtimeConfig: { portMappings: [{ ...ok, containerPort: -1 }] } },
      'Invalid container port number: -1',
      'runtimeConfig.portMappings[0].containerPort',
    ],
    [
      'protocol icmp',
      { runtimeConfig: { portMappings: [{ ...ok, protocol: 'icmp' }] } },
      'Invalid protocol "icmp": must be tcp, udp or sctp',
      'runtimeConfig.portMappings[0].protocol',
    ],
    [
      'hostIP not an address',
      { runtimeConfig: { portMappings: [{ ...ok, hostIP: '1.2.3.4; flush ruleset' }] } },
      'Invalid host IP "1.2.3.4; flush ruleset"',
      'runtimeConfig.portMappings[0].hostIP',
    ],
    [
      'condition with ;',
      { backend: 'nftables', conditionsV4: ['ip', 'saddr', '1.2.3.4;', 'flush', 'ruleset'], runtimeConfig: { portMappings: [ok] } },
      'invalid condition "1.2.3.4;"',
      'conditionsV4[2]',
    ],
    ['markMasqBit 32', { markMasqBit: 32, runtimeConfig: { portMappings: [ok] } }, 'MasqMarkBit must be between 0 and 31', 'markMasqBit'],
    [
      'both mark options',
      { markMasqBit: 5, externalSetMarkChain: 'KUBE-MARK-MASQ', runtimeConfig: { portMappings: [ok] } },
      'Cannot specify externalSetMarkChain and markMasqBit',
      'externalSetMarkChain',
    ],
    ['unknown backend', { backend: 'ebpf', runtimeConfig: { portMappings: [ok] } }, 'unrecognized backend "ebpf"', 'backend'],
    [
      'nft conditions for iptables',
      { backend: 'iptables', conditionsV4: ['ip', 'saddr', '10.0.0.1'], conditionsV6: ['ip6', 'saddr', '::1'], runtimeConfig: { portMappings: [ok] } },
      'iptables backend was requested but configuration contains nftables-specific options [conditionsV4 conditionsV6]',
      'conditionsV4',
    ],
    [
      'condition of 1 MiB',
      { backend: 'nftables', conditionsV4: ['a'.repeat(1 << 20)], runtimeConfig: { portMappings: [ok] } },
      'invalid condition: longer than 4096 characters (1048576)',
      'conditionsV4[0]',
    ],
    [
      'externalSetMarkChain read as an option',
      { externalSetMarkChain: '-j', runtimeConfig: { portMappings: [ok] } },
      'invalid externalSetMarkChain "-j"',
      'externalSetMarkChain',
    ],
    [
      'iptables options for nftables',
      { backend: 'nftables', externalSetMarkChain: 'KUBE-MARK-MASQ', runtimeConfig: { portMappings: [ok] } },
      'nftables backend was requested but configuration contains iptables-specific options [externalSetMarkChain]',
      'externalSetMarkChain',
    ],
  ];
  for (const [what, extra, msg, field] of cases) {
    const r = await execPlugin(
      'portmap',
      { command: 'ADD', containerId: 'badconf', netns: '/run/netns/nowhere', ifname: 'eth0', nodeNetns: node.name },
      { ...base, ...extra },
    );
    t.equal(r.code, 1, `${what}: fails`);
    t.equal(r.json?.code, 7, `${what}: code 7`);
    t.match(r.json?.msg, msg, `${what}: the message`);
    t.match(r.json?.details, new RegExp(`^${field.replace(/[[\].]/g, '\\$&')}: `), `${what}: names ${field}`);
  }
  const save = await nsExec(node.name, 'iptables-save', ['-t', 'nat']);
  t.notMatch(save.stdout, /CNI-/, 'no iptables chain was made');
  const nft = await nsExec(node.name, 'nft', ['list', 'tables']);
  t.notMatch(nft.stdout, /cni_hostport/, 'no nft table was made');
  const noPrev = await execPlugin(
    'portmap',
    { command: 'ADD', containerId: 'noprev', netns: '/run/netns/nowhere', ifname: 'eth0', nodeNetns: node.name },
    { ...base, prevResult: undefined, runtimeConfig: { portMappings: [ok] } },
  );
  t.same(
    [noPrev.code, noPrev.json?.code, noPrev.json?.msg],
    [1, 7, 'must be called as chained plugin'],
    'ADD without prevResult: the reference message, code 7',
  );
  const noPrevCheck = await execPlugin(
    'portmap',
    { command: 'CHECK', containerId: 'noprev', netns: '/run/netns/nowhere', ifname: 'eth0', nodeNetns: node.name },
    { ...base, prevResult: undefined },
  );
  t.same(
    [noPrevCheck.code, noPrevCheck.json?.code, noPrevCheck.json?.msg],
    [1, 7, 'Required prevResult missing'],
    'CHECK without prevResult: the reference message, code 7',
  );
});

for (const backend of BACKENDS) {
  t.test(`${backend}: an ADD the backend refuses fails and leaves nothing behind`, { skip: needsRoot }, async (t) => {
    const { node } = await makeTopology(t);
    // Well-formed tokens the tool itself rejects: the failure comes from nft / iptables-restore.
    const conditions = backend === 'nftables' ? { conditionsV4: ['meta', 'nosuchkey', 'x'] } : { conditionsV4: ['-m', 'nosuchmatch'] };
    const prev = { ...prevResult, ips: [...prevResult.ips, { address: 'fd00::9/64', interface: 0 }] };
    const conf = {
      cniVersion: '1.0.0',
      name: 'podnet',
      type: 'portmap',
      backend,
      ...conditions,
      runtimeConfig: { portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }] },
      prevResult: prev,
    };
    const r = await execPlugin('portmap', { command: 'ADD', containerId: 'refused', netns: '/run/netns/nowhere', ifname: 'eth0', nodeNetns: node.name }, conf);
    t.equal(r.code, 1, 'ADD fails');
    t.match(
      r.json?.msg,
      backend === 'nftables' ? /^unable to set up nftables rules for port mappings: / : /^unable to setup DNAT: /,
      `the reference's wording ${r.json?.msg}`,
    );
    t.same(await portmapRulesOf(node.name, 'podnet', 'refused'), [], 'no rule of the container is left (in either family)');
  });
}

for (const backend of BACKENDS) {
  t.test(`${backend}: DEL needs neither prevResult nor the netns`, { skip: needsRoot }, async (t) => {
    const { node } = await makeTopology(t);
    const portMappings = [
      { hostPort: 8080, containerPort: 80, protocol: 'tcp' },
      { hostPort: 8080, containerPort: 81, protocol: 'udp' },
    ];
    const prev = { ...prevResult, ips: [...prevResult.ips, { address: 'fd00::9/64', interface: 0 }] };
    const conf = { cniVersion: '1.0.0', name: 'podnet', type: 'portmap', backend, runtimeConfig: { portMappings } };
    const env = { containerId: 'noprev-del', ifname: 'eth0', nodeNetns: node.name };
    const add = await execPlugin('portmap', { command: 'ADD', netns: '/run/netns/nowhere', ...env }, { ...conf, prevResult: prev });
    t.equal(add.code, 0, `ADD succeeds ${add.stdout}`);
    t.ok((await portmapRulesOf(node.name, 'podnet', 'noprev-del')).length >= 4, 'rules in both families');
    const del = await execPlugin('portmap', { command: 'DEL', netns: '', ...env }, conf);
    t.equal(del.code, 0, `DEL without prevResult and netns succeeds ${del.stdout}`);
    t.same(await portmapRulesOf(node.name, 'podnet', 'noprev-del'), [], 'and removes the rules of both families');
  });
}
