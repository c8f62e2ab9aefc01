import t from 'tap';
import { ifbAlias, ifbName } from './ifb-name.ts';

t.test("the reference's test vector: network cni-plugin-bandwidth-test, container dummy", async (t) => {
  t.equal(ifbName('cni-plugin-bandwidth-test', 'dummy'), 'bwpa8eda89404b7');
});

t.test('alias names the network; hashed when it would not fit IFALIASZ', async (t) => {
  t.equal(ifbAlias('podnet'), 'cni-bandwidth network=podnet');
  const long = 'n'.repeat(300);
  t.match(ifbAlias(long), /^cni-bandwidth network-sha512=[0-9a-f]{32}$/);
  t.not(ifbAlias(long), ifbAlias(`${long}x`));
});
