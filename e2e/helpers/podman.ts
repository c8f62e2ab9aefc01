// Podman (Debian's 4.3, CNI network backend) on our plugins alone, with nothing of the
// machine's own podman: storage, run state, config, network configs and the image all live in a
// temp dir of the test's, and the plugin dir holds only our executables.
//
// Podman runs in the node netns through `nsenter --net`, not `ip netns exec`: the latter mounts
// a fresh /sys, which hides the cgroup mounts the OCI runtime needs ("no cgroup mount found in
// mountinfo"). The bridge, the iptables rules and the container's veth still land in the node.
// Three settings make it run in a sandbox as well as on a host: runc rather than crun (crun 1.8
// refuses a hybrid cgroup v1/v2 host), lower nofile/nproc limits (podman raises them to 1048576,
// which needs CAP_SYS_RESOURCE), and no cgroup of conmon's own (`--cgroups=no-conmon`, with the
// container's cgroup under a parent of the test's, removed at the end).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import type { TestNetns } from './netns.ts';
import { oursOnlyDir, tempDir } from './plugins.ts';
import { run, tryRun, withDirOver } from '../../test-support/sh.ts';

export interface PodmanOutput {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Podman {
  /** `podman ARGS…` in the node netns (with `o.varLib` mounted over /var/lib); a failure is an answer */
  (args: readonly string[], o?: { varLib?: string }): Promise<PodmanOutput>;
  /** where podman writes its network config files (network_config_dir) */
  readonly networkDir: string;
  /** a fresh dir for host-local's dataDir */
  readonly ipamDir: string;
  /** `podman run` options that place the container's cgroup under the test's own parent */
  readonly runOptions: readonly string[];
}

const conf = (o: { pluginDir: string; networkDir: string; tmp: string; root: string }) => `
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]

[network]
network_backend = "cni"
cni_plugin_dirs = ["${o.pluginDir}"]
network_config_dir = "${o.networkDir}"

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "none"
tmp_dir = "${o.tmp}"
image_copy_tmp_dir = "${o.tmp}"
static_dir = "${join(o.root, 'libpod')}"
volume_path = "${join(o.root, 'volumes')}"
`;

/** A podman of the test's own in `node`; every container and network it made is removed in teardown. */
export function podmanOnNode(t: Test, node: TestNetns): Podman {
  const base = tempDir(t, 'cnits-podman-');
  const dir = (name: string): string => {
    const path = join(base, name);
    mkdirSync(path);
    return path;
  };
  const [root, runroot, tmp, networkDir, ipamDir, home] = [dir('root'), dir('runroot'), dir('tmp'), dir('networks'), dir('ipam'), dir('home')];
  const pluginDir = oursOnlyDir(t);
  writeFileSync(join(base, 'containers.conf'), conf({ pluginDir, networkDir, tmp, root }));
  writeFileSync(join(base, 'storage.conf'), `[storage]\ndriver = "vfs"\ngraphroot = "${root}"\nrunroot = "${runroot}"\n`);
  writeFileSync(join(base, 'registries.conf'), '');
  const env = {
    PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: home,
    TMPDIR: tmp,
    CONTAINERS_CONF: join(base, 'containers.conf'),
    CONTAINERS_STORAGE_CONF: join(base, 'storage.conf'),
    CONTAINERS_REGISTRIES_CONF: join(base, 'registries.conf'),
  };
  const cmd = (args: readonly string[]) => [
    'nsenter',
    `--net=${node.path}`,
    'env',
    '-i',
    ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
    'podman',
    ...args,
  ];
  const podman = ((args: readonly string[], o: { varLib?: string } = {}) => {
    const c = o.varLib === undefined ? cmd(args) : withDirOver(o.varLib, '/var/lib', cmd(args));
    return tryRun(c[0] as string, c.slice(1));
  }) as Podman;
  const cgroupParent = `/cnits-podman-${process.pid}-${randomBytes(3).toString('hex')}`;
  Object.assign(podman, { networkDir, ipamDir, runOptions: ['--cgroups=no-conmon', `--cgroup-parent=${cgroupParent}`] });
  // the OCI runtimes keep their state there (podman's cleanup calls runc with its default root)
  const runtimeStates = ['/run/runc', '/run/crun'].filter((d) => !existsSync(d));
  // Runs before the temp dirs go (teardowns run last first); never throws, so they all run.
  t.teardown(async () => {
    await podman(['rm', '--force', '--all', '--time', '0']);
    for (const net of readdirSync(networkDir).filter((f) => f.endsWith('.conflist')))
      await podman(['network', 'rm', '--force', net.slice(0, -'.conflist'.length)]);
    removeCgroups(cgroupParent);
    for (const d of runtimeStates) tryRmdir(d); // made during the test, and empty: ours
  });
  return podman;
}

function tryRmdir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty (in use by someone else) or already gone: left as it is
  }
}

/** rmdir the test's cgroup parent and the (empty, the container being gone) cgroups in it, in every hierarchy. */
export function removeCgroups(parent: string): void {
  const hierarchies = [
    '/sys/fs/cgroup',
    ...readdirSync('/sys/fs/cgroup', { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => join('/sys/fs/cgroup', e.name)),
  ];
  for (const h of hierarchies) {
    const dir = join(h, parent);
    if (!existsSync(dir)) continue;
    for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) tryRmdir(join(dir, e.name));
    tryRmdir(dir);
  }
}

/**
 * An image with no registry: a rootfs of busybox-static's /bin/busybox and its applet links, with
 * `files` (path → content) added, imported as `name`. The import runs with a dir of the test's
 * over /var/lib, where podman would keep its blob-info cache whatever its --root.
 */
export async function importBusyboxImage(t: Test, podman: Podman, name: string, files: Readonly<Record<string, string>>): Promise<void> {
  const base = tempDir(t, 'cnits-image-');
  const rootfs = join(base, 'rootfs');
  mkdirSync(join(rootfs, 'bin'), { recursive: true });
  await run('cp', ['/bin/busybox', join(rootfs, 'bin', 'busybox')]);
  for (const applet of (await run('/bin/busybox', ['--list'])).split('\n').filter((a) => /^[\w.[-]+$/.test(a) && a !== 'busybox')) {
    symlinkSync('busybox', join(rootfs, 'bin', applet));
  }
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(rootfs, path, '..'), { recursive: true });
    writeFileSync(join(rootfs, path), content);
  }
  const tar = join(base, 'rootfs.tar');
  await run('tar', ['-C', rootfs, '-cf', tar, '.']);
  const varLib = join(base, 'var-lib');
  mkdirSync(varLib);
  const r = await podman(['import', tar, name], { varLib });
  if (r.code !== 0) throw new Error(`podman import failed (exit ${r.code}): ${r.stderr.trim()}`);
}
