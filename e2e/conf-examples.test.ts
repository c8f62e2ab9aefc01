// Every conflist in conf-examples/ is loaded and run through the built executables.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { attachment } from './helpers/conflist.ts';
import { makeNetns } from './helpers/netns.ts';
import { needsRoot } from './helpers/sh.ts';
import { compareVersions } from '../lib/cni-spec/versions.ts';

const dir = resolve(import.meta.dirname, '..', 'conf-examples');
const files = readdirSync(dir).filter((f) => f.endsWith('.conflist'));
t.ok(files.length > 0, 'there are example conflists');

for (const file of files) {
  t.test(file, { skip: needsRoot }, async (t) => {
    const text = readFileSync(join(dir, file), 'utf8');
    const ns = await makeNetns(t, 'ex');
    const a = attachment(text, { containerId: `ex-${process.pid}`, netns: ns.path, ifname: 'eth0' });
    const result = await a.add();
    t.equal(result.cniVersion, a.list.cniVersion, 'ADD result is in the list version');
    if (compareVersions(a.list.cniVersion, '0.4.0') >= 0) await t.resolves(a.check(), 'CHECK passes');
    await t.resolves(a.del(), 'DEL succeeds');
    await t.resolves(a.del(), 'DEL again succeeds');
  });
}
