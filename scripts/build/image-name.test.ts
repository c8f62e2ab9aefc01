// The image's tags (scripts/build/image-name.ts) from a made-up package.json and digest.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { buildTag, imageTag, isBuildTag, packageVersion } from './image-name.ts';

function withVersion(t: Test, version: unknown): string {
  const root = mkdtempSync(join(tmpdir(), 'cnits-imgname-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'x', version }));
  return root;
}

t.test("the version tag follows package.json's version; a build's tag adds a digest", async (t) => {
  t.equal(imageTag(packageVersion(withVersion(t, '1.2.3'))), 'localhost/cni-ts:1.2.3');
  t.equal(imageTag(packageVersion(withVersion(t, '1.2.3-rc.1+build.5'))), 'localhost/cni-ts:1.2.3-rc.1_build.5', 'an OCI tag has no "+"');
  const digest = 'ab'.repeat(32);
  t.equal(buildTag(digest, '1.2.3'), 'localhost/cni-ts:1.2.3-files.abababababab');
  t.ok(isBuildTag(buildTag(digest, '1.2.3')));
  t.notOk(isBuildTag(imageTag('1.2.3')), 'the version tag is not a build tag');
  t.notOk(isBuildTag('localhost/other:1.2.3-files.abababababab'), "another repository's tag is not ours");
});

t.test('what cannot be a tag is refused', async (t) => {
  t.throws(() => packageVersion(withVersion(t, 'a b')), /cannot be an image tag/);
  t.throws(() => packageVersion(withVersion(t, 7)), /cannot be an image tag/);
  t.throws(() => buildTag('not-hex'), /not a digest/);
});
