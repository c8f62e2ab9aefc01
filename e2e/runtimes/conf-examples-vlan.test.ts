// The conf examples that put pods on a VLAN (bridge "vlan", "vlanTrunk"), run as
// e2e/runtimes/conf-examples.test.ts runs the others: cni-run add, check, del
// (e2e/helpers/conf-examples.ts). Apart, because they need bridge VLAN filtering: where the kernel
// lacks it they skip, and the kernel lab (e2e/kernel-lab.txt) runs them.
import t from 'tap';
import { addCheckDel, exampleFiles } from '../helpers/conf-examples.ts';
import { impl } from '../helpers/impl.ts';
import { needsRoot } from '../../test-support/sh.ts';

const files = exampleFiles(true);
t.ok(files.length > 0, 'there are example conflists with a VLAN');
for (const file of files) {
  t.test(`${file}: cni-run add, check, del`, { skip: needsRoot || impl.lacks('kernel-vlan-filtering') }, (t) => addCheckDel(t, file));
}
