// The DaemonSet's long-running container (deploy/daemonset.yaml: the installer with --watch) run
// detached by Podman after its init container, on a node that already has a plugin and a network
// of another vendor's: a program removed from /opt/cni/bin and a conflist changed by hand are put
// back, the foreign files are left alone, `podman stop` ends it at once and cleanly (its SIGTERM,
// as a kubelet sends it), and `--uninstall` run from the image then leaves only the foreign files.
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { CONFIG_MAP_DATA, exitCode, imageUnderTest, INIT, makeNodeDirs, podman, runContainer, WATCH } from '../helpers/image.ts';
import { installArgs } from '../../test-support/install-args.ts';
import { needsRoot } from '../../test-support/sh.ts';

const [TEMPLATE_KEY = ''] = Object.keys(CONFIG_MAP_DATA);
// Another vendor's files on the node, which no step of ours may touch.
const FOREIGN_PLUGIN = ['macvlan', '#!/bin/sh\necho another vendor\n'] as const;
const FOREIGN_CONF = ['05-other.conflist', '{"cniVersion":"1.0.0","name":"other","plugins":[{"type":"macvlan"}]}\n'] as const;

/** Waits up to `ms` for `ok()`; whether it came true. */
async function eventually(ok: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) if (ok()) return true;
  return ok();
}

t.test('--watch puts back what goes, leaves foreign files, stops on podman stop; --uninstall leaves only the foreign files', { skip: needsRoot }, async (t) => {
  const image = await imageUnderTest();
  if ('missing' in image) return void t.fail(image.missing);
  const node = makeNodeDirs(t);
  const [binDir, confDir] = [node.hostPaths['/opt/cni/bin'] ?? '', node.hostPaths['/etc/cni/net.d'] ?? ''];
  writeFileSync(join(binDir, FOREIGN_PLUGIN[0]), FOREIGN_PLUGIN[1], { mode: 0o755 });
  writeFileSync(join(confDir, FOREIGN_CONF[0]), FOREIGN_CONF[1]);

  const init = await runContainer(t, { id: image.id, c: INIT, node });
  t.equal(init.result.code, 0, `the init container succeeds: ${init.result.stderr}`);
  const conflist = join(confDir, TEMPLATE_KEY);
  const ours = readFileSync(conflist, 'utf8');

  const watch = await runContainer(t, { id: image.id, c: WATCH, node, detach: true });
  t.equal(watch.result.code, 0, `the watching container starts: ${watch.result.stderr}`);
  // It has looked at the dirs once it says it watches them.
  t.ok(await waitForLog(watch.name, /watching/, 20_000), 'it reports that it watches');

  const bridge = join(binDir, 'bridge');
  rmSync(bridge);
  t.ok(await eventually(() => existsSync(bridge), 15_000), 'a removed bridge is put back');
  t.equal(statSync(bridge).ino, statSync(join(binDir, 'loopback')).ino, 'as a hard link of the starter again, as the build lays it out');
  t.equal(statSync(bridge).mode & 0o777, 0o755, 'executable');
  writeFileSync(conflist, ours.replace(/"cni0"/, '"br-by-hand"'));
  t.ok(await eventually(() => readFileSync(conflist, 'utf8') === ours, 15_000), 'a conflist changed by hand is written back');
  t.equal(readFileSync(join(binDir, FOREIGN_PLUGIN[0]), 'utf8'), FOREIGN_PLUGIN[1], "the other vendor's plugin is untouched");
  t.equal(readFileSync(join(confDir, FOREIGN_CONF[0]), 'utf8'), FOREIGN_CONF[1], "the other vendor's conflist is untouched");

  const started = Date.now();
  const stop = await podman(['stop', '--time', '20', watch.name]);
  const took = Date.now() - started;
  t.equal(stop.code, 0, `podman stop: ${stop.stderr}`);
  t.ok(took < 10_000, `it ended on SIGTERM, in ${took} ms, not at the 20 s SIGKILL`);
  t.equal(await exitCode(watch.name), 0, 'and exited 0');

  // As docs/deploy.md (Removing) has it: the DaemonSet's mounts, the two dirs and --uninstall.
  const dirs = installArgs(INIT.args ?? []);
  const uninstall = await runContainer(t, {
    id: image.id,
    c: INIT,
    node,
    args: ['--target', dirs.target ?? '', '--conf-dir', dirs.confDir ?? '', '--uninstall'],
  });
  t.equal(uninstall.result.code, 0, `--uninstall from the image succeeds: ${uninstall.result.stdout}${uninstall.result.stderr}`);
  t.same(readdirSync(binDir), [FOREIGN_PLUGIN[0]], 'the plugin dir holds only the foreign plugin');
  t.same(readdirSync(confDir), [FOREIGN_CONF[0]], 'the conf dir holds only the foreign conflist');
});

async function waitForLog(name: string, re: RegExp, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
    const logs = await podman(['logs', name]);
    if (re.test(logs.stdout + logs.stderr)) return true;
  }
  return false;
}
