// Interop with a real libcni client: the reference cnitool (built from Debian's CNI
// source package by scripts/build/build-cnitool.sh) runs the same loopback conflist through
// our executable and through Debian's Go plugin; the results must have the same shape.
import t, { type Test } from 'tap';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cnitool, cnitoolMissing } from '../helpers/cnitool.ts';
import { makeNetns } from '../helpers/netns.ts';
import { DIST_BIN, GO_BIN, tempDir } from '../helpers/plugins.ts';
import { needsRoot } from '../../test-support/sh.ts';

// Without root the test skips (the allow-listed reason); a missing cnitool or Go reference is a
// missing prerequisite, which `npm test` installs: here it fails the test, never skips it.
const missing = [
  cnitoolMissing,
  existsSync(join(GO_BIN, 'loopback')) ? undefined : `no ${GO_BIN}/loopback: Debian's containernetworking-plugins is not installed`,
].filter((m) => m !== undefined);

// Debian's libcni 1.1.2 knows spec versions up to 1.0.0.
const list = { cniVersion: '1.0.0', name: 'lo-net', plugins: [{ type: 'loopback' }] };

async function cnitoolRun(t: Test, binDir: string, verb: string, netns: string) {
  const confDir = tempDir(t, 'cnits-netconf-');
  writeFileSync(join(confDir, '10-lo.conflist'), JSON.stringify(list));
  return cnitool({ confDir, cniPath: [binDir] }, verb, 'lo-net', netns);
}

// Newer libcni drops an empty dns object from 1.x results, Debian's older one prints {}.
function shape(result: Record<string, unknown>, netns: string): unknown {
  const { dns, ...rest } = result;
  const text = JSON.stringify(dns !== undefined && Object.keys(dns as object).length > 0 ? result : rest);
  return JSON.parse(text.replaceAll(netns, '<netns>'));
}

t.test('cnitool add/check/del: our loopback and the Go one give the same result', { skip: needsRoot }, async (t) => {
  t.same(missing, [], 'cnitool and the Go reference loopback are there');
  if (missing.length > 0) return;
  const results: unknown[] = [];
  for (const binDir of [DIST_BIN, GO_BIN]) {
    const ns = await makeNetns(t, 'ct');
    const add = await cnitoolRun(t, binDir, 'add', ns.path);
    t.equal(add.code, 0, `add through ${binDir}: ${add.stderr}`);
    results.push(shape(JSON.parse(add.stdout), ns.path));
    t.equal((await cnitoolRun(t, binDir, 'check', ns.path)).code, 0, `check through ${binDir}`);
    t.equal((await cnitoolRun(t, binDir, 'del', ns.path)).code, 0, `del through ${binDir}`);
  }
  t.same(results[0], results[1], 'same result from ours and the reference');
  t.same(results[0], {
    cniVersion: '1.0.0',
    interfaces: [{ name: 'lo', mac: '00:00:00:00:00:00', sandbox: '<netns>' }],
    ips: [
      { interface: 0, address: '127.0.0.1/8' },
      { interface: 0, address: '::1/128' },
    ],
  });
});
