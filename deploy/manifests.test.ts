// deploy/'s manifests in the shape a cluster needs (docs/deploy.md): a DaemonSet in kube-system on
// every node (host network, every taint tolerated, node-critical priority) whose init container
// installs into the node's /opt/cni/bin and /etc/cni/net.d, its long-running container the same
// installer with --watch, both from the image `npm run image` tags, and a ConfigMap carrying a
// conflist template that `cni-run validate` accepts once filled, naming only our plugins: the
// Kubernetes chain of conf-examples/k8s-node.conflist.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { PLUGIN_NAMES } from '../plugins/registry.ts';
import { imageTag } from '../scripts/build/image-name.ts';
import { loadPluginChecks } from '../tools/cni-run/plugin-checks.ts';
import { validateText } from '../tools/cni-run/validate.ts';
import { daemonSetPod, readManifests, theOne, type Container, type PodSpec } from '../test-support/deploy-manifests.ts';
import { fillTemplate, installArgs } from '../test-support/install-args.ts';

await loadPluginChecks();

const pod: PodSpec = daemonSetPod();
const daemonSet = theOne('DaemonSet');
const configMap = theOne('ConfigMap');
const init = pod.initContainers?.[0] as Container;
const main = pod.containers[0] as Container;

/** Where the container sees the volume whose hostPath is `path`. */
function mountOfHostPath(c: Container, path: string): string | undefined {
  const volume = pod.volumes?.find((v) => v.hostPath?.path === path);
  return c.volumeMounts?.find((m) => m.name === volume?.name)?.mountPath;
}

t.test('two manifests: a DaemonSet and a ConfigMap, both in kube-system', async (t) => {
  t.same(
    readManifests().map((m) => `${m.file}: ${m.manifest.apiVersion} ${m.manifest.kind}`),
    ['configmap.yaml: v1 ConfigMap', 'daemonset.yaml: apps/v1 DaemonSet'],
  );
  t.equal(daemonSet.metadata.namespace, 'kube-system');
  t.equal(configMap.metadata.namespace, 'kube-system');
  t.match(
    daemonSet.spec?.template?.metadata?.labels,
    daemonSet.spec?.selector?.matchLabels ?? { selector: 'missing' },
    "the selector matches the pods' labels",
  );
});

t.test('on every node, before any pod network: host network, every taint tolerated, node-critical', async (t) => {
  t.equal(pod.hostNetwork, true);
  t.ok(
    pod.tolerations?.some((x) => x['operator'] === 'Exists' && x['key'] === undefined && x['effect'] === undefined),
    'a toleration with operator Exists and no key or effect: it tolerates every taint',
  );
  t.equal(pod.priorityClassName, 'system-node-critical');
});

t.test("the node's plugin and config dirs are hostPath volumes; the template is the ConfigMap's", async (t) => {
  t.same(
    pod.volumes?.flatMap((v) => (v.hostPath ? [v.hostPath.path] : [])),
    ['/opt/cni/bin', '/etc/cni/net.d'],
  );
  t.same(
    pod.volumes?.flatMap((v) => (v.configMap ? [v.configMap.name] : [])),
    [configMap.metadata.name],
    'the ConfigMap of deploy/ is mounted',
  );
});

t.test('the init container installs from the image npm run image builds, into the hostPath mounts', async (t) => {
  t.ok(init, 'there is an init container');
  t.equal(init.image, imageTag(), 'the tag scripts/build/image.ts gives the image');
  t.equal(init.command, undefined, "no command: the image's entrypoint, the installer, runs with the args");
  const a = installArgs(init.args ?? []);
  t.equal(a.target, mountOfHostPath(init, '/opt/cni/bin'), '--target is where /opt/cni/bin is mounted');
  t.equal(a.confDir, mountOfHostPath(init, '/etc/cni/net.d'), '--conf-dir is where /etc/cni/net.d is mounted');
  t.equal(a.target, '/host/opt/cni/bin');
  t.equal(a.confDir, '/host/etc/cni/net.d');
  const templateVolume = pod.volumes?.find((v) => v.configMap)?.name;
  const templateMount = init.volumeMounts?.find((m) => m.name === templateVolume);
  t.ok(templateMount?.readOnly, 'the template is mounted read-only');
  const key = Object.keys(configMap.data ?? {})[0] ?? '';
  t.equal(a.conflist, join(templateMount?.mountPath ?? '', key), '--conflist is the ConfigMap key as mounted');
  t.equal(a.watch, false, 'the init container installs once and ends');
});

t.test('the long-running container is the same installer with --watch, mounts and image alike', async (t) => {
  t.equal(main.image, init.image);
  t.same(main.args, [...(init.args ?? []), '--watch'], "the init container's args and --watch");
  t.same(main.volumeMounts, init.volumeMounts);
  t.same(main.securityContext, init.securityContext);
  t.notOk(main.securityContext?.privileged, 'not privileged: it writes two directories and nothing else');
});

t.test("the template, filled with the init container's --set values, is valid and names only our plugins", async (t) => {
  const [key, template] = Object.entries(configMap.data ?? {})[0] ?? ['', ''];
  t.match(key, /\.conflist$/);
  const filled = fillTemplate(template, installArgs(init.args ?? []).set);
  const report = validateText(key, filled);
  t.same(
    report.findings.filter((f) => f.severity === 'error'),
    [],
    'cni-run validate finds no error',
  );
  const list = JSON.parse(filled) as { plugins: { type: string; ipam?: { type?: string } }[] };
  for (const type of list.plugins.flatMap((p) => [p.type, p.ipam?.type ?? []].flat()))
    t.ok((PLUGIN_NAMES as readonly string[]).includes(type), `${type} is ours`);
  // The chain of the example the e2e suite runs, with the subnet a --set away.
  const example = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'conf-examples', 'k8s-node.conflist'), 'utf8')) as { plugins: unknown[] };
  const subnet = '10.244.1.0/24';
  const asExample = JSON.parse(fillTemplate(template, { ...installArgs(init.args ?? []).set, POD_SUBNET: subnet })) as { plugins: unknown[] };
  t.same(asExample.plugins, example.plugins, "with the example's subnet: conf-examples/k8s-node.conflist's chain");
});
