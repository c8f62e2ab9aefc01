// `cni-ts install` of each form (the bundles' dist/bin/cni-ts and the Bun binary), with its
// default source, the directory its own file lies in: a fresh install whose programs run the
// Kubernetes chain through cnitool; a foreign file left alone, then taken over; the running
// --watch installer putting back a removed file, a changed one and the conflist; --uninstall
// leaving exactly what was not ours. docs/install.md describes the ownership rules.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { cnitoolMissing } from '../helpers/cnitool.ts';
import { makeNetns } from '../helpers/netns.ts';
import { ipFiles } from '../helpers/node-state.ts';
import { BASE_ENV, GO_BIN, tempDir } from '../helpers/plugins.ts';
import { ipJson, needsRoot } from '../../test-support/sh.ts';
import { BUN, BUNDLES } from './builds.ts';
import { chainCall, cniTsInstall, contents, expectedFrom, k8sChain, MANIFEST, sha256 } from './helpers.ts';

const FORMS = [
  { label: 'bundles', dir: BUNDLES, n: 71 },
  { label: 'Bun', dir: BUN, n: 72 },
] as const;

const manifestOf = (dir: string): { form: string; version: string; files: Record<string, string>; conflist?: { path: string } } =>
  JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8'));

/** The conflist template a DaemonSet would ship: the chain with the node's subnet as a placeholder. */
function template(t: Test): string {
  const file = join(tempDir(t, 'cnits-inst-tpl-'), 'k8s.conflist');
  const list = {
    cniVersion: '1.0.0',
    name: 'k8s-pod-network',
    plugins: [
      { type: 'bridge', bridge: 'cni0', isGateway: true, ipam: { type: 'host-local', ranges: [[{ subnet: '{{POD_CIDR}}' }]] } },
      { type: 'portmap', capabilities: { portMappings: true } },
    ],
  };
  writeFileSync(file, JSON.stringify(list));
  return file;
}

for (const form of FORMS) {
  t.test(`${form.label}: a fresh install runs the Kubernetes chain through cnitool`, { skip: needsRoot, timeout: 300_000 }, async (t) => {
    t.equal(cnitoolMissing, undefined, 'cnitool is built');
    if (cnitoolMissing !== undefined) return;
    const target = join(tempDir(t, 'cnits-inst-'), 'opt', 'cni', 'bin');
    const r = await cniTsInstall(form.dir, ['--target', target]);
    t.equal(r.code, 0, r.stderr);
    t.equal(r.stderr, '', 'nothing on stderr');
    const expected = expectedFrom(form.dir);
    for (const name of Object.keys(expected)) t.match(r.stdout, new RegExp(`^installed ${join(target, name)}$`, 'm'), `reports ${name}`);
    const left = contents(target);
    t.same(Object.keys(left).sort(), [MANIFEST, ...Object.keys(expected)].sort(), 'the programs and the manifest, no temporary file');
    delete left[MANIFEST];
    t.same(left, expected, 'every program with the bytes of the build');
    const m = manifestOf(target);
    t.equal(m.form, form.label === 'Bun' ? 'bun' : 'bundle');
    t.same(m.files, expected, 'the manifest owns each file by its digest');

    const chain = await k8sChain(t, form.n, form.label === 'Bun' ? 'fu' : 'fb');
    const pod = await makeNetns(t, 'inst-pod');
    const bin = target;
    const add = await chainCall({ ...chain, bin }, 'add', pod, 0);
    t.equal(add.code, 0, `ADD: ${add.stderr}`);
    t.match(JSON.parse(add.stdout), { ips: [{ address: /^10\.\d+\.0\.\d+\/24$/ }] });
    const addrs = await ipJson<{ ifname: string; addr_info: { local: string }[] }[]>(pod.name, ['addr', 'show', 'eth0']);
    t.match(addrs[0]?.addr_info[0]?.local ?? '', new RegExp(`^10\\.${form.n}\\.0\\.`), 'the pod has its address');
    t.equal((await chainCall({ ...chain, bin }, 'check', pod, 0)).code, 0, 'CHECK');
    t.equal((await chainCall({ ...chain, bin }, 'del', pod, 0)).code, 0, 'DEL');
    t.same(ipFiles(chain.dataDir, chain.network), [], 'no address left');

    const again = await cniTsInstall(form.dir, ['--target', target]);
    t.equal(again.code, 0, again.stderr);
    t.notMatch(again.stdout, /^installed /m, 'a second run installs nothing');
    t.match(again.stdout, new RegExp(`^unchanged ${join(target, 'bridge')}$`, 'm'));
  });

  t.test(`${form.label}: a foreign file is left alone, then taken over`, { skip: needsRoot }, async (t) => {
    const target = tempDir(t, 'cnits-inst-');
    // another component's bridge (Debian's Go plugin) and a symlink of someone's
    copyFileSync(join(GO_BIN, 'bridge'), join(target, 'bridge'));
    const theirs = sha256(join(target, 'bridge'));
    const r = await cniTsInstall(form.dir, ['--target', target]);
    t.equal(r.code, 0, r.stderr);
    t.match(r.stdout, new RegExp(`^kept foreign ${join(target, 'bridge')} \\(a file not installed by cni-ts; --take-over replaces it\\)$`, 'm'));
    t.equal(sha256(join(target, 'bridge')), theirs, 'their bridge is untouched');
    t.notOk('bridge' in manifestOf(target).files, 'and not ours');

    const again = await cniTsInstall(form.dir, ['--target', target]);
    t.match(again.stdout, /^kept foreign .*\/bridge /m, 'still foreign on the next run');

    const taken = await cniTsInstall(form.dir, ['--target', target, '--take-over']);
    t.equal(taken.code, 0, taken.stderr);
    t.match(taken.stdout, new RegExp(`^took over \\(was foreign\\) ${join(target, 'bridge')}$`, 'm'));
    t.equal(sha256(join(target, 'bridge')), expectedFrom(form.dir)['bridge'], 'bridge is ours now');
    t.equal(manifestOf(target).files['bridge'], expectedFrom(form.dir)['bridge'], 'and owned');
  });

  t.test(
    `${form.label}: --watch puts back a removed file, a changed one and the conflist; SIGTERM ends it`,
    { skip: needsRoot, timeout: 120_000 },
    async (t) => {
      const target = tempDir(t, 'cnits-inst-');
      const confDir = tempDir(t, 'cnits-inst-net.d-');
      const args = ['--target', target, '--conf-dir', confDir, '--conflist', template(t), '--set', 'POD_CIDR=10.73.0.0/24', '--watch', '--interval', '3'];
      const child = spawn(join(form.dir, 'cni-ts'), ['install', ...args], { env: BASE_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      t.teardown(() => {
        if (child.exitCode === null) child.kill('SIGKILL');
      });
      const until = async (what: string, ok: () => boolean) => {
        for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 100));
        t.ok(ok(), what);
      };
      await until('it reports watching', () => /^watching /m.test(out));
      const conflist = join(confDir, '10-k8s-pod-network.conflist');
      t.match(JSON.parse(readFileSync(conflist, 'utf8')), { plugins: [{ ipam: { ranges: [[{ subnet: '10.73.0.0/24' }]] } }] }, 'the conflist, filled in');
      const want = expectedFrom(form.dir);

      unlinkSync(join(target, 'portmap'));
      await until('a removed portmap is back', () => existsSync(join(target, 'portmap')) && sha256(join(target, 'portmap')) === want['portmap']);
      t.match(out, new RegExp(`^restored \\(was missing\\) ${join(target, 'portmap')}$`, 'm'));
      if (form.label === 'Bun')
        t.equal(statSync(join(target, 'portmap')).ino, statSync(join(target, 'bridge')).ino, 'the starter put back is a link of the others');

      writeFileSync(join(target, 'loopback'), '#!/bin/sh\necho tampered\n');
      await until('a changed loopback is ours again', () => sha256(join(target, 'loopback')) === want['loopback']);
      t.match(out, new RegExp(`^restored \\(was changed\\) ${join(target, 'loopback')}$`, 'm'));

      rmSync(conflist);
      await until('the conflist is back', () => existsSync(conflist));

      child.kill('SIGTERM');
      t.equal(await exited, 0, 'SIGTERM: exit 0');
      t.match(out, /^SIGTERM: stopped watching$/m);
      t.equal(err, '', 'nothing on stderr');
      const left = contents(target);
      delete left[MANIFEST];
      t.same(left, want, 'every program in place, nothing temporary');
    },
  );

  t.test(`${form.label}: --uninstall removes what it owns, leaves what it does not`, { skip: needsRoot }, async (t) => {
    const target = tempDir(t, 'cnits-inst-');
    const confDir = tempDir(t, 'cnits-inst-net.d-');
    copyFileSync(join(GO_BIN, 'bridge'), join(target, 'bridge'));
    writeFileSync(join(target, 'README'), 'not ours\n');
    writeFileSync(join(confDir, '05-other.conflist'), '{}');
    const r = await cniTsInstall(form.dir, ['--target', target, '--conf-dir', confDir, '--conflist', template(t), '--set', 'POD_CIDR=10.74.0.0/24']);
    t.equal(r.code, 0, r.stderr);
    t.ok(existsSync(join(confDir, '10-k8s-pod-network.conflist')), 'the conflist is written');
    const theirs = sha256(join(target, 'bridge'));

    const u = await cniTsInstall(form.dir, ['--target', target, '--uninstall', '--grace-ms', '100']);
    t.equal(u.code, 0, u.stderr);
    t.match(u.stdout, new RegExp(`^removed ${join(target, 'tuning')}$`, 'm'));
    t.match(u.stdout, new RegExp(`^removed ${join(confDir, '10-k8s-pod-network.conflist')}$`, 'm'));
    t.same(Object.keys(contents(target)), ['README', 'bridge'], 'only what was not ours');
    t.equal(sha256(join(target, 'bridge')), theirs, 'their bridge untouched');
    t.same(Object.keys(contents(confDir)), ['05-other.conflist'], 'only the conflist we did not write');

    const twice = await cniTsInstall(form.dir, ['--target', target, '--uninstall']);
    t.equal(twice.code, 1, 'a second uninstall: nothing of ours there');
    t.match(twice.stderr, /^cni-ts install: .* has no manifest/);
  });
}
