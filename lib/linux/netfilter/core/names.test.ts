import t from 'tap';
import { iptablesComment, masqChainName, nftInstanceHash, nftMasqComment, nftNetworkHash, spoofNames } from './names.ts';

// Expected values are the literals of the reference's own tests (pkg/utils/utils_test.go,
// pkg/ip/ipmasq_nftables_linux_test.go): equal names are what lets either DEL clean the other's ADD.
t.test('iptables chain name: CNI- + 24 hex of sha512(network + containerId)', async (t) => {
  t.equal(masqChainName('test', '1234'), 'CNI-2bbe0c48b91a7d1b8a6753a8');
  t.equal(masqChainName('testalongnamethatdoesnotmakesense', '1234'), 'CNI-374f33fe84ab0ed84dcdebe3');
  t.not(masqChainName('testalongnamethatdoesnotmakesense', '1235'), 'CNI-374f33fe84ab0ed84dcdebe3');
  t.equal(masqChainName('a', 'b').length, 28);
});

t.test('iptables comment names network and container, not the interface', async (t) => {
  t.equal(iptablesComment('mynet', 'abc123'), 'name: "mynet" id: "abc123"');
});

t.test('nft masquerade comments as the reference writes them', async (t) => {
  t.equal(nftNetworkHash('unit-test'), '6fd94d501e58f0aa');
  t.equal(nftInstanceHash('unit-test', 'eth0', 'one'), '6fd94d501e58f0aa-287fc69eff0574a2');
  t.equal(nftMasqComment('unit-test', 'eth0', 'one'), '6fd94d501e58f0aa-287fc69eff0574a2, net: unit-test, if: eth0, id: one');
  t.equal(nftMasqComment('unit-test', 'eth0', 'two'), '6fd94d501e58f0aa-d750b2c8f0f25d5f, net: unit-test, if: eth0, id: two');
  t.equal(nftMasqComment('unit-test', 'eth0', 'three'), '6fd94d501e58f0aa-a4d4adb82b669cfe, net: unit-test, if: eth0, id: three');
  t.equal(nftMasqComment('unit-test', 'eth0', 'four'), '6fd94d501e58f0aa-e766de567ef6c543, net: unit-test, if: eth0, id: four');
  t.equal(nftMasqComment('alternate', 'net1', 'three'), '82783ef24bdc7036-acb19d111858e348, net: alternate, if: net1, id: three');
});

t.test('nft comments are cut at 128 characters, keeping the hash prefix', async (t) => {
  const id = 'f'.repeat(200);
  const c = nftMasqComment('net', 'eth0', id);
  t.equal(c.length, 128);
  t.ok(c.startsWith(`${nftInstanceHash('net', 'eth0', id)}, net: net, if: eth0, id: fff`));
});

t.test('spoof check names come from <containerId>-<ifname>', async (t) => {
  t.same(spoofNames('abc', 'eth0'), {
    ref: 'abc-eth0',
    ifaceChain: 'cni-br-iface-abc-eth0',
    macChain: 'cni-br-iface-abc-eth0-mac',
    comment: 'macspoofchk-abc-eth0',
  });
});
