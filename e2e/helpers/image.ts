// The image `npm run image` builds, run by Podman the way a kubelet runs deploy/daemonset.yaml's
// containers: the manifest's image, arguments, mounts and security settings, with the node's
// hostPath directories played by temp dirs of the test's (bind mounts) and the ConfigMap by a
// dir holding its keys as files. Podman here is the machine's own (root, its default storage,
// where `npm run image` left the image); each container is the test's, named, and removed in
// teardown. No image is ever removed.
//
// `--network none`: the installer needs none (the DaemonSet's hostNetwork is for the pod network
// it installs, not for the installer). `--pull=never`: the image is local or the test fails.
// The container's rlimits are lowered: Podman otherwise raises nofile and nproc to 1048576, which
// needs CAP_SYS_RESOURCE, and a sandbox may not have it ("error setting rlimits ... operation not
// permitted"). A container that does not start fails the test, never skips it (no NO_OCI_RUNTIME,
// unlike e2e/runtimes/podman.test.ts): the flags are ours, and a wrong one reads exactly like a
// runtime failure (the rlimits did), so no such failure is known to lie outside our code.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Test } from 'tap';
import { tempDir } from './plugins.ts';
import { removeCgroups } from './podman.ts';
import { daemonSetPod, theOne, type Container, type PodSpec } from '../../test-support/deploy-manifests.ts';
import { run, tryRun } from '../../test-support/sh.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
export const BUN_BINARY = join(ROOT, 'dist', 'bun', 'cni-ts');

export const POD: PodSpec = daemonSetPod();
export const INIT = POD.initContainers?.[0] as Container;
export const WATCH = POD.containers[0] as Container;
export const CONFIG_MAP_DATA: Readonly<Record<string, string>> = theOne('ConfigMap').data ?? {};

export interface PodmanOutput {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export const podman = (args: readonly string[]): Promise<PodmanOutput> => tryRun('podman', args);

/**
 * `--ulimit` options: this process's own limits, capped at 1024 (what e2e/helpers/podman.ts gives its
 * containers), never above them. Higher values, even below this process's hard limit, made runc
 * fail to set RLIMIT_NPROC in a container without capabilities here.
 */
export function ulimitOptions(limits = readFileSync('/proc/self/limits', 'utf8'), cap = 1024): string[] {
  const of = (label: string, name: string): string[] => {
    const m = new RegExp(`^${label}\\s+(\\S+)`, 'm').exec(limits);
    if (!m) throw new Error(`/proc/self/limits has no "${label}" line`);
    const soft = m[1] === 'unlimited' ? cap : Math.min(Number(m[1]), cap);
    return ['--ulimit', `${name}=${soft}:${soft}`];
  };
  return [...of('Max open files', 'nofile'), ...of('Max processes', 'nproc')];
}

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** Whether the image `id` carries `binary` (its entrypoint's file) byte for byte. */
async function carries(id: string, binary: string): Promise<boolean> {
  const inspect = await podman(['image', 'inspect', '--format', '{{json .Config.Entrypoint}}', id]);
  const inImage = (JSON.parse(inspect.stdout || '[]') as string[])[0];
  if (inspect.code !== 0 || inImage === undefined) return false;
  const mount = await podman(['image', 'mount', id]);
  if (mount.code !== 0) throw new Error(`podman image mount ${id}: ${mount.stderr}`);
  try {
    return sha256(join(mount.stdout.trim(), inImage)) === sha256(binary);
  } finally {
    await podman(['image', 'unmount', id]);
  }
}

/**
 * The ID of an image of the manifest's repository that carries dist/bun/cni-ts byte for byte at
 * its entrypoint: the manifest's own tag, or else another tag of that repository (another
 * worktree's `npm run image` may have moved the version tag meanwhile); else why not, to fail
 * the test with (never to skip it: `npm test` builds the image).
 */
export async function imageUnderTest(): Promise<{ id: string } | { missing: string }> {
  const name = INIT.image;
  const repo = name.slice(0, name.lastIndexOf(':'));
  const listed = await podman(['images', '--format', '{{.ID}}', '--no-trunc', '--filter', `reference=${repo}`]);
  const tagged = await podman(['image', 'inspect', '--format', '{{.Id}}', name]);
  const ids = [...new Set([...(tagged.code === 0 ? [tagged.stdout.trim()] : []), ...listed.stdout.split('\n').filter((l) => l !== '')])];
  for (const id of ids) if (await carries(id.replace(/^sha256:/, ''), BUN_BINARY)) return { id: id.replace(/^sha256:/, '') };
  return { missing: `no image of ${repo} in Podman's storage carries dist/bun/cni-ts: npm run image builds it (npm test does)` };
}

/** The node a test plays: its /opt/cni/bin and /etc/cni/net.d, and the ConfigMap's files. */
export interface NodeDirs {
  readonly hostPaths: Readonly<Record<string, string>>;
  readonly configMap: string;
}

/** Fresh, empty hostPath dirs for every hostPath volume of the pod, and the ConfigMap's keys as files. */
export function makeNodeDirs(t: Test, configData: Readonly<Record<string, string>> = CONFIG_MAP_DATA): NodeDirs {
  const base = tempDir(t, 'cnits-node-');
  const hostPaths: Record<string, string> = {};
  for (const v of POD.volumes ?? []) {
    if (v.hostPath === undefined) continue;
    const dir = join(base, 'host', v.hostPath.path);
    mkdirSync(dir, { recursive: true });
    hostPaths[v.hostPath.path] = dir;
  }
  const configMap = join(base, 'configmap');
  mkdirSync(configMap);
  for (const [key, text] of Object.entries(configData)) writeFileSync(join(configMap, key), text);
  return { hostPaths, configMap };
}

/** The `podman run` options that give `c` its securityContext, as the kubelet would. */
export function securityOptions(c: Container): string[] {
  const s = c.securityContext ?? {};
  const known = ['runAsUser', 'privileged', 'allowPrivilegeEscalation', 'readOnlyRootFilesystem', 'capabilities'];
  const unknown = Object.keys(s).filter((k) => !known.includes(k));
  if (unknown.length > 0) throw new Error(`securityContext: no Podman equivalent written for ${unknown.join(', ')}`);
  return [
    ...(s.runAsUser === undefined ? [] : ['--user', String(s.runAsUser)]),
    ...(s.privileged ? ['--privileged'] : []),
    ...(s.allowPrivilegeEscalation === false ? ['--security-opt', 'no-new-privileges'] : []),
    // a read-only root with nothing writable added: Podman's own tmpfs on /tmp and /run are not the kubelet's
    ...(s.readOnlyRootFilesystem ? ['--read-only', '--read-only-tmpfs=false'] : []),
    ...(s.capabilities?.drop ?? []).map((c) => `--cap-drop=${c.toLowerCase()}`),
    ...(s.capabilities?.add ?? []).map((c) => `--cap-add=${c.toLowerCase()}`),
  ];
}

/** `-v` options for the container's mounts: hostPath volumes from `node`, the ConfigMap's dir. */
export function mountOptions(c: Container, node: NodeDirs): string[] {
  return (c.volumeMounts ?? []).flatMap((m) => {
    const v = POD.volumes?.find((x) => x.name === m.name);
    const ro = m.readOnly ? ':ro' : '';
    if (v?.hostPath !== undefined) return ['-v', `${node.hostPaths[v.hostPath.path]}:${m.mountPath}${ro}`];
    if (v?.configMap !== undefined) return ['-v', `${node.configMap}:${m.mountPath}:ro`];
    throw new Error(`volume ${m.name}: neither hostPath nor configMap`);
  });
}

export interface ContainerRun {
  /** the container's name (removed in teardown) */
  readonly name: string;
  /** exit code and output of `podman run` (with detach: its container ID on stdout) */
  readonly result: PodmanOutput;
}

/**
 * Runs the manifest's container `c` from the image `id` on `node`, with `args` in place of its own
 * when given; waits for it to end unless `detach`. The container is removed in teardown.
 */
export async function runContainer(
  t: Test,
  o: { id: string; c: Container; node: NodeDirs; args?: readonly string[]; detach?: boolean },
): Promise<ContainerRun> {
  const name = `cnits-e2e-${process.pid}-${randomBytes(3).toString('hex')}`;
  // The container's cgroup under a parent of the test's, and none for conmon: all removed at the end.
  const cgroupParent = `/${name}`;
  t.teardown(async () => {
    await podman(['rm', '--force', '--time', '0', '--ignore', name]);
    removeCgroups(cgroupParent);
  });
  const result = await podman([
    'run',
    '--name',
    name,
    '--cgroups=no-conmon',
    `--cgroup-parent=${cgroupParent}`,
    ...(o.detach ? ['--detach'] : []),
    '--pull=never',
    '--network=none',
    ...ulimitOptions(),
    ...securityOptions(o.c),
    ...mountOptions(o.c, o.node),
    ...(o.c.command === undefined ? [] : ['--entrypoint', JSON.stringify(o.c.command)]),
    o.id,
    ...(o.args ?? o.c.args ?? []),
  ]);
  return { name, result };
}

/** The container's exit code once it has stopped; undefined while it runs. */
export async function exitCode(name: string): Promise<number | undefined> {
  const s = await run('podman', ['inspect', '--format', '{{.State.Status}} {{.State.ExitCode}}', name]);
  const [status, code] = s.trim().split(' ');
  return status === 'exited' ? Number(code) : undefined;
}
