// The installer's planning (tools/install/plan.ts): given the manifest, what lies in the target
// and the source's digests, which steps run, in which order, and what the manifest says after.
import t from 'tap';
import { planInstall, planUninstall, type InstallInput, type Manifest, type Present } from './plan.ts';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const C = 'c'.repeat(64);
const S = '5'.repeat(64); // a starter
const file = (sha256: string): Present => ({ kind: 'file', sha256 });
const PROGRAMS = new Set(['bridge', 'host-local', 'cni-ts', 'loopback']);

function input(o: Partial<InstallInput>): InstallInput {
  return {
    manifest: undefined,
    target: new Map(),
    form: 'bundle',
    version: '2',
    source: [],
    knownPrograms: PROGRAMS,
    takeOver: false,
    ...o,
  };
}

const ops = (steps: readonly { op: string; name: string }[]) => steps.map((s) => `${s.op} ${s.name}`);

t.test('an empty directory: every file installed as new, and owned', async (t) => {
  const p = planInstall(
    input({
      source: [
        { name: 'bridge', sha256: A },
        { name: 'host-local', sha256: B },
      ],
    }),
  );
  t.same(p.steps, [
    { op: 'install', name: 'bridge', why: 'new', afterGrace: false },
    { op: 'install', name: 'host-local', why: 'new', afterGrace: false },
  ]);
  t.same(p.manifestAfter, { version: '2', form: 'bundle', files: { bridge: A, 'host-local': B } });
  t.same(p.manifestBefore.files, { bridge: A, 'host-local': B }, 'owned before a file lands');
});

t.test('a foreign file is kept, unless taken over; a foreign file with our bytes is adopted', async (t) => {
  const target = new Map<string, Present>([
    ['bridge', file(C)],
    ['host-local', file(B)],
    ['loopback', { kind: 'symlink' }],
  ]);
  const source = [
    { name: 'bridge', sha256: A },
    { name: 'host-local', sha256: B },
    { name: 'loopback', sha256: C },
  ];
  const kept = planInstall(input({ target, source }));
  t.same(ops(kept.steps), ['foreign bridge', 'unchanged host-local', 'foreign loopback']);
  t.match(kept.steps[1], { adopted: true });
  t.match(kept.steps[2], { what: 'a symlink' });
  t.same(kept.manifestAfter.files, { 'host-local': B }, 'only what is ours');

  const taken = planInstall(input({ target, source, takeOver: true }));
  t.same(ops(taken.steps), ['install bridge', 'unchanged host-local', 'install loopback']);
  t.match(taken.steps[0], { why: 'take-over' });
  t.same(taken.manifestAfter.files, { bridge: A, 'host-local': B, loopback: C });
});

t.test('owned files: identical skipped, older upgraded, missing or changed put back', async (t) => {
  const manifest: Manifest = { version: '1', form: 'bundle', files: { bridge: A, 'host-local': A, loopback: A, 'cni-ts': A } };
  const target = new Map<string, Present>([
    ['bridge', file(B)], // the new bytes already
    ['host-local', file(A)], // our old bytes
    ['cni-ts', file(C)], // someone else's bytes over ours
  ]);
  const source = ['bridge', 'host-local', 'loopback', 'cni-ts'].map((name) => ({ name, sha256: B }));
  const p = planInstall(input({ manifest, target, source }));
  t.same(
    p.steps.map((s) => ('why' in s ? `${s.name}:${s.why}` : `${s.name}:${s.op}`)),
    ['bridge:unchanged', 'host-local:upgrade', 'loopback:missing', 'cni-ts:changed'],
  );
  t.same(p.manifestAfter.files, { bridge: B, 'cni-ts': B, 'host-local': B, loopback: B });
});

t.test('a directory at a name is never touched, owned or not', async (t) => {
  const manifest: Manifest = { version: '1', form: 'bundle', files: { bridge: A } };
  const p = planInstall(input({ manifest, target: new Map([['bridge', { kind: 'other', what: 'a directory' }]]), source: [{ name: 'bridge', sha256: B }] }));
  t.same(p.steps, [{ op: 'foreign', name: 'bridge', what: 'a directory' }]);
  t.same(p.manifestAfter.files, {}, 'and it is no longer ours');
});

t.test('bundles → Bun: the binary first, then the starters; the Bun form has no bundle left', async (t) => {
  const manifest: Manifest = { version: '1', form: 'bundle', files: { bridge: A, 'cni-ts': B, 'host-local': C } };
  const target = new Map<string, Present>([
    ['bridge', file(A)],
    ['cni-ts', file(B)],
    ['host-local', file(C)],
  ]);
  const source = [
    { name: 'cni-ts', sha256: '9'.repeat(64) },
    { name: 'bridge', sha256: S },
    { name: 'host-local', sha256: S },
  ];
  const p = planInstall(input({ manifest, target, source, form: 'bun' }));
  t.same(ops(p.steps), ['install cni-ts', 'install bridge', 'install host-local']);
  t.notOk(
    p.steps.some((s) => 'afterGrace' in s && s.afterGrace),
    'no grace',
  );
  t.equal(p.manifestAfter.form, 'bun');
});

t.test('Bun → bundles: every starter replaced before the binary, which waits a grace period', async (t) => {
  const manifest: Manifest = { version: '1', form: 'bun', files: { bridge: S, 'cni-ts': A, 'host-local': S } };
  const target = new Map<string, Present>([
    ['bridge', file(S)],
    ['cni-ts', file(A)],
    ['host-local', file(S)],
  ]);
  const source = [
    { name: 'bridge', sha256: B },
    { name: 'cni-ts', sha256: C },
    { name: 'host-local', sha256: B },
  ];
  const p = planInstall(input({ manifest, target, source }));
  t.same(ops(p.steps), ['install bridge', 'install host-local', 'install cni-ts']);
  t.same(
    p.steps.map((s) => ('afterGrace' in s ? s.afterGrace : undefined)),
    [false, false, true],
  );

  // The same with cni-ts left out of the bundles: the binary is removed, last, after the grace.
  const subset = planInstall(input({ manifest, target, source: source.filter((f) => f.name !== 'cni-ts') }));
  t.same(ops(subset.steps), ['install bridge', 'install host-local', 'remove cni-ts']);
  t.match(subset.steps[2], { afterGrace: true });
  t.same(subset.manifestAfter.files, { bridge: B, 'host-local': B });
  t.same(subset.manifestBefore.files, { bridge: B, 'cni-ts': A, 'host-local': B }, 'the binary stays ours until removed');
});

t.test('same form, a subset: owned programs left out stay as they are, and ours; an unknown one goes', async (t) => {
  const manifest: Manifest = { version: '1', form: 'bundle', files: { bridge: A, loopback: A, macvlan: A } };
  const target = new Map<string, Present>([
    ['bridge', file(A)],
    ['loopback', file(A)],
    ['macvlan', file(A)],
  ]);
  const p = planInstall(input({ manifest, target, source: [{ name: 'bridge', sha256: B }] }));
  t.same(ops(p.steps), ['install bridge', 'remove macvlan']);
  t.same(p.manifestAfter.files, { bridge: B, loopback: A });
});

t.test('an obsolete owned file someone changed is left, and no longer ours', async (t) => {
  const manifest: Manifest = { version: '1', form: 'bundle', files: { macvlan: A } };
  const p = planInstall(input({ manifest, target: new Map([['macvlan', file(C)]]), source: [] }));
  t.same(p.steps, [{ op: 'leave', name: 'macvlan', what: 'a file changed since we installed it' }]);
  t.same(p.manifestAfter.files, {});
});

t.test('the conflist we wrote stays recorded across a plan', async (t) => {
  const manifest: Manifest = { version: '1', form: 'bundle', files: {}, conflist: { path: '/etc/cni/net.d/10-k.conflist', sha256: A } };
  t.same(planInstall(input({ manifest })).manifestAfter.conflist, manifest.conflist);
});

t.test('uninstall: only files with our bytes go; the Bun binary last, after the grace', async (t) => {
  const manifest: Manifest = { version: '1', form: 'bun', files: { bridge: S, 'cni-ts': A, 'host-local': S, loopback: S } };
  const target = new Map<string, Present>([
    ['bridge', file(S)],
    ['cni-ts', file(A)],
    ['host-local', file(C)],
  ]);
  const p = planUninstall(manifest, target);
  t.same(ops(p.steps), ['remove bridge', 'leave host-local', 'remove cni-ts']);
  t.match(p.steps[2], { afterGrace: true });
});
