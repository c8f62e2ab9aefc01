// deploy/'s manifests as the tests read them: the manifest test checks their shape, and the image
// e2e tests run their containers as a kubelet would (the same image, arguments, mounts and
// security settings), so what is tested is what a cluster gets, not a copy of it.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

export const DEPLOY_DIR = join(import.meta.dirname, '..', 'deploy');

export interface VolumeMount {
  readonly name: string;
  readonly mountPath: string;
  readonly readOnly?: boolean;
}

export interface Container {
  readonly name: string;
  readonly image: string;
  readonly imagePullPolicy?: string;
  readonly command?: readonly string[];
  readonly args?: readonly string[];
  readonly volumeMounts?: readonly VolumeMount[];
  readonly securityContext?: {
    readonly runAsUser?: number;
    readonly privileged?: boolean;
    readonly allowPrivilegeEscalation?: boolean;
    readonly readOnlyRootFilesystem?: boolean;
    readonly capabilities?: { readonly add?: readonly string[]; readonly drop?: readonly string[] };
  };
}

export interface Volume {
  readonly name: string;
  readonly hostPath?: { readonly path: string; readonly type?: string };
  readonly configMap?: { readonly name: string; readonly items?: readonly unknown[] };
}

export interface PodSpec {
  readonly hostNetwork?: boolean;
  readonly tolerations?: readonly Record<string, unknown>[];
  readonly priorityClassName?: string;
  readonly initContainers?: readonly Container[];
  readonly containers: readonly Container[];
  readonly volumes?: readonly Volume[];
}

export interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly labels?: Record<string, string> };
  readonly spec?: {
    readonly selector?: { readonly matchLabels?: Record<string, string> };
    readonly template?: { readonly metadata?: { readonly labels?: Record<string, string> }; readonly spec: PodSpec };
  };
  readonly data?: Record<string, string>;
}

/** Every document of every .yaml file in deploy/, in file order, each with the file it came from. */
export function readManifests(dir = DEPLOY_DIR): { file: string; manifest: Manifest }[] {
  const out: { file: string; manifest: Manifest }[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
      const manifest = doc.toJS() as Manifest | null;
      if (manifest !== null) out.push({ file, manifest });
    }
  }
  return out;
}

/** The one manifest of `kind` in deploy/; throws when there is none or more than one. */
export function theOne(kind: string, dir = DEPLOY_DIR): Manifest {
  const found = readManifests(dir).filter((m) => m.manifest.kind === kind);
  if (found.length !== 1) throw new Error(`deploy/: ${found.length} manifests of kind ${kind}, expected one`);
  return (found[0] as { manifest: Manifest }).manifest;
}

/** The DaemonSet's pod spec. */
export function daemonSetPod(dir = DEPLOY_DIR): PodSpec {
  const spec = theOne('DaemonSet', dir).spec?.template?.spec;
  if (spec === undefined) throw new Error('deploy/: the DaemonSet has no pod template');
  return spec;
}
