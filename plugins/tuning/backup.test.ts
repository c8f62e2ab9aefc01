import t from 'tap';
import { backupPath, decodeSaved, encodeSaved } from './backup.ts';

t.test("the reference's file name and bytes (json.MarshalIndent with one space, struct order, omitempty)", async (t) => {
  t.equal(backupPath('/run/cni/tuning', 'abc', 'eth0'), '/run/cni/tuning/abc_eth0.json');
  t.equal(
    encodeSaved({ mtu: 1500, mac: 'aa:bb:cc:dd:ee:ff', allmulti: false, promisc: true }),
    '{\n "mac": "aa:bb:cc:dd:ee:ff",\n "promisc": true,\n "mtu": 1500,\n "allmulti": false\n}',
  );
  t.equal(encodeSaved({ txQLen: 0 }), '{\n "txQLen": 0\n}');
  t.equal(encodeSaved({}), '{}');
});

t.test("reading a saved file: keys folded as Go's decoder does, junk restores nothing", async (t) => {
  t.same(decodeSaved('{"MTU": 9000, "Mac": "02:00:00:00:00:01", "promisc": false}'), { mac: '02:00:00:00:00:01', promisc: false, mtu: 9000 });
  t.same(decodeSaved('not json'), {});
  t.same(decodeSaved('[1]'), {});
});
