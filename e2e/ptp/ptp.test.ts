// the built ptp + host-local in a node netns: every spec version (ADD → state → CHECK → DEL
// → nothing left → DEL again), dual-stack traffic the moment ADD returns (pod ↔ node, pod → pod,
// masqueraded pod → remote), a failing ADD undone, GC and STATUS.
import { readdirSync } from 'node:fs';
import t from 'tap';
import { gc, status } from '../helpers/conflist.ts';
import { ipFiles, leftovers, link, masqRulesOf, nodeVeths, untilNodeVethsGone } from '../helpers/node-state.ts';
import { tempDir } from '../helpers/plugins.ts';
import { PTP_NETWORK, PTP_V4, PTP_V6, ptpAttachment, ptpConflist, ptpPlugin } from '../helpers/ptp.ts';
import { ipJson, needsRoot, run } from '../../test-support/sh.ts';
import { hasCheck, SPEC_VERSIONS } from '../helpers/spec-versions.ts';
import { makePod, makeTopology, peerSeenBy, pings, startPeerReporter, UPLINK } from '../helpers/topology.ts';

const nothingLeft = {};
const addrOf = (cidr: string) => cidr.slice(0, cidr.indexOf('/'));

t.test('every spec version: ADD, the routes the reference sets, CHECK, DEL leaves nothing, DEL again', { skip: needsRoot }, async (t) => {
  for (const v of SPEC_VERSIONS) {
    const { node, dataDir } = await makeTopology(t);
    const pod = await makePod(t);
    const att = ptpAttachment(ptpConflist(v, ptpPlugin(dataDir, {}, { v6: false })), { node, pod, id: `ptp-${v}` });
    const r = await att.add();
    const ip = v === '0.1.0' || v === '0.2.0' ? r.ip4.ip : r.ips[0].address;
    t.match(ip, /^10\.250\.0\.\d+\/24$/, `${v}: an address from the range`);
    const [hostVeth] = await nodeVeths(node.name);
    t.ok(hostVeth, `${v}: a host veth`);
    const hostAddrs = await ipJson<{ addr_info: { local: string; prefixlen: number }[] }[]>(node.name, ['-4', 'addr', 'show', 'dev', hostVeth as string]);
    t.same(
      hostAddrs[0]?.addr_info.map((a) => `${a.local}/${a.prefixlen}`),
      [`${PTP_V4.gateway}/32`],
      `${v}: the gateway /32 on the host veth`,
    );
    const hostRoutes = await ipJson<{ dst: string; dev: string }[]>(node.name, ['-4', 'route', 'show', 'dev', hostVeth as string]);
    t.ok(
      hostRoutes.some((rt) => rt.dst === addrOf(ip)),
      `${v}: a host route to the pod`,
    );
    const podRoutes = (await ipJson<{ dst: string; gateway?: string; scope?: string }[]>(pod.name, ['-4', 'route', 'show'])).map(
      (rt) => `${rt.dst} ${rt.gateway ?? rt.scope}`,
    );
    t.same(
      podRoutes.sort(),
      [`default ${PTP_V4.gateway}`, `${PTP_V4.gateway} link`, `${PTP_V4.subnet} ${PTP_V4.gateway}`].sort(),
      `${v}: the pod routes through the gateway only`,
    );
    if (hasCheck(v)) await t.resolves(att.check(), `${v}: CHECK passes`);
    await att.del();
    t.same(await leftovers({ node: node.name, pod: pod.name, dataDir, network: PTP_NETWORK }), nothingLeft, `${v}: nothing left`);
    await t.resolves(att.del(), `${v}: a second DEL succeeds`);
  }
});

t.test('dual stack: reachable when ADD returns, pod ↔ node, pod → pod, masqueraded beyond the node', { skip: needsRoot }, async (t) => {
  const { node, remote, dataDir } = await makeTopology(t, { remote: true });
  const [podA, podB] = [await makePod(t), await makePod(t)];
  const list = ptpConflist('1.1.0', ptpPlugin(dataDir));
  const a = ptpAttachment(list, { node, pod: podA, id: 'ptp-a' });
  const b = ptpAttachment(list, { node, pod: podB, id: 'ptp-b' });
  const [ra, rb] = [await a.add(), await b.add()];
  t.teardown(() => Promise.all([a.del(), b.del()]));
  const ipsA = (ra.ips as { address: string }[]).map((i) => addrOf(i.address));
  const ipsB = (rb.ips as { address: string }[]).map((i) => addrOf(i.address));
  t.equal(ra.interfaces.length, 2, 'host veth and container interface');
  t.match(ra.interfaces[1], { name: 'eth0', sandbox: podA.path });
  const tentative = await ipJson<{ addr_info: { tentative?: boolean; local: string }[] }[]>(podA.name, ['-6', 'addr', 'show', 'dev', 'eth0']);
  t.same(
    tentative[0]?.addr_info.filter((x) => x.tentative).map((x) => x.local),
    [],
    'no container address is tentative when ADD returns',
  );
  for (const gw of [PTP_V4.gateway, PTP_V6.gateway]) t.ok(await pings(podA.name, gw), `pod → gateway ${gw} at the first try`);
  for (const ip of ipsA) t.ok(await pings(node.name, ip), `node → pod ${ip}`);
  // Neighbour discovery on pod B's host veth happens here, not in ADD: the helper's usual tries.
  for (const ip of ipsB) t.ok(await pings(podA.name, ip), `pod A → pod B ${ip}`);
  await startPeerReporter(t, remote!.name);
  const seen = await peerSeenBy(podA.name, UPLINK.remoteV4);
  t.equal(seen.peer, UPLINK.nodeV4, `pod → remote is masqueraded to the node's address ${seen.error}`);
  const seen6 = await peerSeenBy(podA.name, UPLINK.remoteV6);
  t.equal(seen6.peer, UPLINK.nodeV6, `IPv6 too ${seen6.error}`);
  await a.del();
  t.notOk(await pings(podB.name, ipsA[0] as string), 'after DEL, pod A is gone (control for the pings above)');
  t.same(
    await masqRulesOf(
      node.name,
      'ptp-a',
      ra.ips.map((i: { address: string }) => i.address),
    ),
    [],
    "pod A's masquerade rules are gone",
  );
});

t.test('a failing ADD leaves no veth, no allocation, no rules', { skip: needsRoot }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const pod = await makePod(t);
  // The interface name is taken in the pod: the veth cannot be made after IPAM allocated.
  await run('ip', ['-n', pod.name, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'taken0']);
  const att = ptpAttachment(ptpConflist('1.0.0', ptpPlugin(dataDir)), { node, pod, id: 'ptp-fail' });
  await t.rejects(att.add(), /already exists/);
  const left = await leftovers({ node: node.name, dataDir, network: PTP_NETWORK });
  t.same(left, nothingLeft, 'nothing left in the node');
});

t.test('GC removes the allocation and masquerade rules of attachments no longer listed; STATUS', { skip: needsRoot }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const [keep, lose] = [await makePod(t), await makePod(t)];
  const list = ptpConflist('1.1.0', ptpPlugin(dataDir));
  const k = ptpAttachment(list, { node, pod: keep, id: 'ptp-keep' });
  const l = ptpAttachment(list, { node, pod: lose, id: 'ptp-lose' });
  const [rk, rl] = [await k.add(), await l.add()];
  t.teardown(() => k.del());
  await run('ip', ['netns', 'del', lose.name]);
  await gc(list, [{ containerID: 'ptp-keep', ifname: 'eth0' }], { nodeNetns: node.name });
  t.same(
    await masqRulesOf(
      node.name,
      'ptp-lose',
      rl.ips.map((i: { address: string }) => i.address),
    ),
    [],
    'the lost pod’s rules are gone',
  );
  t.not(
    (
      await masqRulesOf(
        node.name,
        'ptp-keep',
        rk.ips.map((i: { address: string }) => i.address),
      )
    ).length,
    0,
    'the kept pod’s rules stay',
  );
  t.equal(ipFiles(dataDir, PTP_NETWORK).length, 2, 'only the kept pod’s two addresses are allocated');
  await t.resolves(status(list, { nodeNetns: node.name }), 'STATUS passes');
});

t.test('DEL after the netns is gone still removes the masquerade rules and the allocation', { skip: needsRoot }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const pod = await makePod(t);
  const att = ptpAttachment(ptpConflist('1.0.0', ptpPlugin(dataDir)), { node, pod, id: 'ptp-gone' });
  const r = await att.add();
  const ips = r.ips.map((i: { address: string }) => i.address);
  t.not((await masqRulesOf(node.name, 'ptp-gone', ips)).length, 0, 'control: ADD masquerades');
  await run('ip', ['netns', 'del', pod.name]);
  await att.del();
  await untilNodeVethsGone(node.name);
  t.same(await leftovers({ node: node.name, dataDir, network: PTP_NETWORK }), nothingLeft, 'nothing left (the reference leaks the rules)');
});

t.test('an MTU the kernel refuses is code 7 before IPAM: nothing in the dataDir, and DEL succeeds', { skip: needsRoot }, async (t) => {
  const { node } = await makeTopology(t);
  const pod = await makePod(t);
  for (const mtu of [10, 67]) {
    // host-local's DEL makes the network's directory and lock, as the reference's does: one dataDir each
    const dataDir = tempDir(t, 'cnits-ipam-');
    const att = ptpAttachment(ptpConflist('1.0.0', ptpPlugin(dataDir, { mtu }, { v6: false })), { node, pod, id: `ptp-mtu${mtu}` });
    await t.rejects(att.add(), { code: 7, message: new RegExp(`invalid MTU ${mtu}`) }, `mtu ${mtu}: code 7`);
    // host-local writes last_reserved_ip.0 (and the lock) as it allocates: none of it may appear
    t.same(readdirSync(dataDir), [], `mtu ${mtu}: the IPAM dataDir is still empty`);
    t.same(await leftovers({ node: node.name, pod: pod.name, dataDir, network: PTP_NETWORK }), nothingLeft, `mtu ${mtu}: nothing left`);
    // The runtime's DEL after the refused ADD must not fail on the same value, or the pod cannot go.
    await t.resolves(att.del(), `mtu ${mtu}: DEL of the refused attachment succeeds`);
  }
  const ok = ptpAttachment(ptpConflist('1.0.0', ptpPlugin(tempDir(t, 'cnits-ipam-'), { mtu: 68 }, { v6: false })), { node, pod, id: 'ptp-mtu68' });
  await ok.add();
  t.equal((await link(pod.name, 'eth0'))?.mtu, 68, 'control: the least MTU a veth takes is accepted and set');
  await ok.del();
});

for (const backend of ['iptables', 'nftables'] as const) {
  t.test(`${backend}: DEL un-masquerades prevResult's addresses, not what the pod has put on its interface since`, { skip: needsRoot }, async (t) => {
    const { node, dataDir } = await makeTopology(t);
    const pod = await makePod(t);
    const id = `ptp-moved-${backend}`;
    const att = ptpAttachment(ptpConflist('1.0.0', ptpPlugin(dataDir, { ipMasqBackend: backend }, { v6: false })), { node, pod, id });
    const r = await att.add();
    const original = r.ips.map((i: { address: string }) => i.address) as string[];
    t.not((await masqRulesOf(node.name, id, original)).length, 0, 'control: ADD masquerades the address it gave');
    // A pod with NET_ADMIN swaps its address for another of the subnet (removed first: deleting a
    // primary address takes the secondaries of its subnet with it).
    const moved = '10.250.0.200/24';
    for (const a of original) await run('ip', ['-n', pod.name, 'addr', 'del', a, 'dev', 'eth0']);
    await run('ip', ['-n', pod.name, 'addr', 'add', moved, 'dev', 'eth0']);
    await att.del();
    t.same(await masqRulesOf(node.name, id, [...original, moved]), [], 'no masquerade rule of the pod is left');
    t.same(await leftovers({ node: node.name, pod: pod.name, dataDir, network: PTP_NETWORK }), nothingLeft, 'nothing left');
  });
}
