// portmap with real traffic, for each backend: bridge + host-local → portmap run by a
// libcni-like runtime from our built plugins inside a node netns, TCP and UDP servers in a pod, clients
// in another netns beyond the node (remote), in the node itself, in another pod and in the pod.
// Every "answers" has its "does not answer" beside it.
import t from 'tap';
import { attachment } from '../helpers/conflist.ts';
import { BACKENDS, nftPortmapOf, portmapList, portmapRulesOf, startNamedServer, tcpAnswer, udpAnswer } from '../helpers/portmap.ts';
import { needsRoot } from '../../test-support/sh.ts';
import { makePod, makeTopology, UPLINK } from '../helpers/topology.ts';

const GATEWAY_V4 = '10.244.0.1';

for (const backend of BACKENDS) {
  t.test(`${backend}: a hostPort answers from everywhere it should, and only there`, { skip: needsRoot }, async (t) => {
    const { node, remote, dataDir } = await makeTopology(t, { remote: true });
    const list = portmapList({ dataDir, backend, v6: true });
    const pod1 = await makePod(t);
    const pod2 = await makePod(t);
    const portMappings = [
      { hostPort: 8080, containerPort: 80, protocol: 'tcp' },
      { hostPort: 8080, containerPort: 81, protocol: 'udp' },
      { hostPort: 8082, containerPort: 80, protocol: 'tcp', hostIP: UPLINK.nodeV4 },
    ];
    const id1 = `pm-${backend}-1-${process.pid}`;
    const a1 = attachment(list, { containerId: id1, netns: pod1.path, ifname: 'eth0', capabilityArgs: { portMappings } }, { nodeNetns: node.name });
    const a2 = attachment(list, { containerId: `pm-${backend}-2-${process.pid}`, netns: pod2.path, ifname: 'eth0' }, { nodeNetns: node.name });
    await a1.add();
    await a2.add();
    await startNamedServer(t, pod1.name, 'pod1', { tcp: 80, udp: 81 });
    const n = node.name;
    const r = remote!.name;

    t.equal(await tcpAnswer(r, UPLINK.nodeV4, 8080), 'pod1', 'TCP from another netns through the node address');
    t.equal(await udpAnswer(r, UPLINK.nodeV4, 8080), 'pod1', 'UDP from another netns through the node address');
    t.equal(await tcpAnswer(r, UPLINK.nodeV4, 8081), '', 'an unmapped port does not answer');
    t.equal(await tcpAnswer(r, UPLINK.nodeV6, 8080), 'pod1', 'TCP over IPv6 from another netns');
    t.equal(await udpAnswer(r, UPLINK.nodeV6, 8080), 'pod1', 'UDP over IPv6 from another netns');
    t.equal(await tcpAnswer(n, UPLINK.nodeV4, 8080), 'pod1', 'from the node through its own address');
    t.equal(await tcpAnswer(n, '127.0.0.1', 8080), 'pod1', 'from the node through 127.0.0.1');
    t.equal(await udpAnswer(n, '127.0.0.1', 8080), 'pod1', 'UDP from the node through 127.0.0.1');
    t.equal(await tcpAnswer(pod2.name, UPLINK.nodeV4, 8080), 'pod1', 'from another pod');
    t.equal(await tcpAnswer(pod1.name, UPLINK.nodeV4, 8080), 'pod1', 'from the pod itself (hairpin)');
    t.equal(await tcpAnswer(r, UPLINK.nodeV4, 8082), 'pod1', 'the hostIP mapping answers on its address');
    t.equal(await tcpAnswer(n, GATEWAY_V4, 8082), '', 'the hostIP mapping does not answer on another node address');
    t.equal(await tcpAnswer(n, GATEWAY_V4, 8080), 'pod1', '…where the unrestricted mapping does');

    await t.resolves(a1.check(), 'CHECK passes');
    await a1.del();
    t.same(await portmapRulesOf(n, 'podnet', id1), [], 'after DEL nothing of the container is left in iptables or nft');
    t.equal(await tcpAnswer(r, UPLINK.nodeV4, 8080), '', 'after DEL the hostPort no longer answers');
    await t.resolves(a1.del(), 'DEL again succeeds');
    await a1.add();
    t.equal(await tcpAnswer(r, UPLINK.nodeV4, 8080), 'pod1', 'ADD after DEL on the same pod works');
    if (backend === 'nftables') t.ok((await nftPortmapOf(n, id1)).length > 0, 'the rules are nft rules');
    await a1.del();
    await a2.del();
  });

  t.test(`${backend}: traffic routed through the node to the same port elsewhere is not rewritten`, { skip: needsRoot }, async (t) => {
    const { node, remote, dataDir } = await makeTopology(t, { remote: true });
    const list = portmapList({ dataDir, backend });
    const pod1 = await makePod(t);
    const pod2 = await makePod(t);
    const portMappings = [
      { hostPort: 8080, containerPort: 80, protocol: 'tcp' },
      { hostPort: 8080, containerPort: 81, protocol: 'udp' },
    ];
    const a1 = attachment(
      list,
      { containerId: `pmt-${backend}-1-${process.pid}`, netns: pod1.path, ifname: 'eth0', capabilityArgs: { portMappings } },
      { nodeNetns: node.name },
    );
    const a2 = attachment(list, { containerId: `pmt-${backend}-2-${process.pid}`, netns: pod2.path, ifname: 'eth0' }, { nodeNetns: node.name });
    await a1.add();
    await a2.add();
    await startNamedServer(t, pod1.name, 'pod1', { tcp: 80, udp: 81 });
    await startNamedServer(t, remote!.name, 'remote', { tcp: 8080, udp: 8080 });
    t.equal(await tcpAnswer(pod2.name, UPLINK.remoteV4, 8080), 'remote', 'TCP from a pod to port 8080 of another machine reaches that machine');
    t.equal(await udpAnswer(pod2.name, UPLINK.remoteV4, 8080), 'remote', 'UDP likewise (plugins#1209: all port-53 traffic through the node was hijacked)');
    t.equal(await tcpAnswer(pod2.name, UPLINK.nodeV4, 8080), 'pod1', 'while the node address still maps to the pod');
    await a1.del();
    await a2.del();
  });
}
