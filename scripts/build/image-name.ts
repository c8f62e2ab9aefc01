// The OCI image's names and layout, apart from its build (scripts/build/image.ts) so that what
// names the image (deploy/daemonset.yaml's test) imports them without building anything. The tag
// follows package.json's version; a second tag carries a digest of the image's files, so
// `npm run image` knows when it has nothing to do, and a build of other files never reuses it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BINARY_PROGRAM } from '../../plugins/registry.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** `localhost/`: built here, never pulled (a `podman run --pull=never` finds it in local storage). */
export const IMAGE_REPO = 'localhost/cni-ts';

/** Where the Bun form lies in the image: the binary and each program's name as a link of its starter. */
export const IMAGE_BIN_DIR = '/cni-ts/bin';

/** The image's entrypoint: the installer; its arguments follow (deploy/daemonset.yaml). */
export const IMAGE_ENTRYPOINT: readonly string[] = [`${IMAGE_BIN_DIR}/${BINARY_PROGRAM}`, 'install'];

export function packageVersion(root = ROOT): string {
  const v = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown }).version;
  if (typeof v !== 'string' || !/^[0-9A-Za-z][0-9A-Za-z.+-]*$/.test(v)) throw new Error(`package.json: version ${JSON.stringify(v)} cannot be an image tag`);
  // an OCI tag has no "+": semver build metadata becomes "_"
  return v.replaceAll('+', '_');
}

/** The tag a cluster pulls (deploy/daemonset.yaml): `localhost/cni-ts:<package.json version>`. */
export function imageTag(version = packageVersion()): string {
  return `${IMAGE_REPO}:${version}`;
}

/** The tag of one build: `localhost/cni-ts:<version>-files.<first 12 hex of the digest of its files>`. */
export function buildTag(digest: string, version = packageVersion()): string {
  if (!/^[0-9a-f]{12,}$/.test(digest)) throw new Error(`not a digest: ${JSON.stringify(digest)}`);
  return `${IMAGE_REPO}:${version}-files.${digest.slice(0, 12)}`;
}

/** Whether `name` is a build tag of ours (`npm run image` keeps the newest few). */
export const isBuildTag = (name: string): boolean => name.startsWith(`${IMAGE_REPO}:`) && name.includes('-files.');

/** The source digest dist/bun was built from (written by npm run build:bun), or undefined when there is none. */
export function builtBunDigest(root = ROOT): string | undefined {
  try {
    return readFileSync(join(root, 'dist', '.sources-bun'), 'utf8').trim();
  } catch {
    return undefined;
  }
}
