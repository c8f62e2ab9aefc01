// The tests of a multicall binary (one executable that carries its runtime and every program,
// linked under each program's name): the Bun form (e2e/packaging/bun.test.ts). The rest of the e2e suite
// runs against its bin directory too (npm test's full e2e run, CNI_E2E_FORM=bun); these cover
// what only the multicall binary has:
// dispatch on the invoked name, in-process IPAM through its own links, no state carried over
// from the build, and running on a node where no Node.js can be found at all.
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import t, { type Test } from 'tap';
import { BINARY_PROGRAM, PLUGIN_NAMES, pluginEntry, PROGRAM_NAMES, type PluginName } from '../../plugins/registry.ts';
import { compileStarter } from '../../runtime/starter-build.ts';
import { droppedByStarter, starterEnv } from '../../runtime/starter-env.ts';
import { execRaw, pluginEnv, type ExecOutput, type Verb } from '../../tools/libcni/invoke.ts';
import { makeNetns } from './netns.ts';
import { BASE_ENV, execPlugin, tempDir } from './plugins.ts';
import { needsRoot, tryRun } from '../../test-support/sh.ts';

export interface MulticallForm {
  /** 'Bun': in test names and messages */
  readonly label: string;
  /** dist/<dir>: holds the binary cni-ts and bin/<program> */
  readonly dir: string;
  /** what builds it, for the message when it is missing */
  readonly build: string;
  /** short tag for names of links, netns and containers (a few lowercase letters) */
  readonly tag: string;
  /** 10.<subnet>.0.0/24 is this file's host-local range; the bridge names take the tag */
  readonly subnet: number;
}

// The starter's links: every program but the binary's own name (scripts/build/build-bun.ts).
const PROGRAMS: readonly string[] = PROGRAM_NAMES.filter((p) => p !== BINARY_PROGRAM);

/**
 * Runs the plugin `file` with `env` and the config on stdin, as execRaw does, under `strace -f`
 * tracing `events` (inside netns `netns` when given); `verbose` prints each execve's
 * environment too. Returns the run and the trace's lines.
 */
async function straced(o: {
  file: string;
  config: unknown;
  env: Record<string, string>;
  trace: string;
  events: string;
  verbose?: boolean;
  netns?: string;
}): Promise<{ run: ExecOutput; lines: string[] }> {
  const strace = ['strace', '-f', '-qq', ...(o.verbose ? ['-v', '-s', '256'] : []), '-e', `trace=${o.events}`, '-o', o.trace];
  const run = await execRaw(o.file, o.env, JSON.stringify(o.config), [...(o.netns === undefined ? [] : ['ip', 'netns', 'exec', o.netns]), ...strace]);
  return { run, lines: readFileSync(o.trace, 'utf8').split('\n') };
}

export function multicallTests(form: MulticallForm): void {
  const DIR = resolve(import.meta.dirname, '..', '..', 'dist', form.dir);
  const BINARY = join(DIR, 'cni-ts');
  const BIN = join(DIR, 'bin');
  const { label, tag } = form;
  try {
    statSync(BINARY);
  } catch {
    throw new Error(`no ${BINARY}: build first (${form.build})`);
  }
  /** The about text a plugin prints on stderr for an empty CNI_COMMAND: it names the plugin. */
  function about(file: string): Promise<{ code: number; stdout: string; stderr: string }> {
    return tryRun('env', ['-i', `PATH=${BASE_ENV['PATH']}`, 'CNI_COMMAND=', file]);
  }

  const STARTER = join(DIR, 'starter');
  const PLUGINS: readonly string[] = PLUGIN_NAMES;

  t.test('every program is a hard link of the starter; bin/cni-ts is the binary', async (t) => {
    t.equal(statSync(join(BIN, 'cni-ts')).ino, statSync(BINARY).ino, `dist/${form.dir}/bin/cni-ts`);
    const ino = statSync(STARTER).ino;
    for (const p of PROGRAMS) t.equal(statSync(join(BIN, p)).ino, ino, `dist/${form.dir}/bin/${p}`);
  });

  t.test('the starter answers VERSION as the binary does, without running it', async (t) => {
    // The starter alone (no cni-ts beside it): what answers is the starter itself.
    const alone = tempDir(t, `cnits-${tag}-starter-`);
    const binaryAs = tempDir(t, `cnits-${tag}-binary-`);
    for (const p of PLUGINS) {
      linkSync(STARTER, join(alone, p));
      linkSync(BINARY, join(binaryAs, p));
      const mine = await execPlugin(p, { command: 'VERSION' }, '', alone);
      const theirs = await execPlugin(p, { command: 'VERSION' }, '', binaryAs);
      t.equal(theirs.code, 0, `${p}: the binary answers VERSION`);
      t.equal(mine.code, 0, `${p}: so does the starter (${mine.stderr})`);
      t.equal(mine.stdout, theirs.stdout, `${p}: the same bytes`);
    }
    const timed = await execPlugin('bandwidth', { command: 'VERSION', baseEnv: { ...BASE_ENV, CNI_TIMING: '1' } }, '', alone);
    t.match(timed.stderr, /^cni-timing plugin=bandwidth verb=VERSION startup=\d+\.\d\d( [a-z]+=\d+\.\d\d)+\n$/, 'CNI_TIMING: the line the binary writes');
  });

  t.test('any other call runs the cni-ts beside the starter; with none there, a CNI error', async (t) => {
    const alone = tempDir(t, `cnits-${tag}-starter-`);
    linkSync(STARTER, join(alone, 'loopback'));
    const r = await execPlugin('loopback', { command: 'ADD', containerId: 'x', netns: '/proc/self/ns/net', ifname: 'lo' }, '{}', alone);
    t.equal(r.code, 1);
    t.match(r.json, { code: 999, msg: `cannot run ${join(alone, 'cni-ts')}: No such file or directory` });
    const about = await tryRun('env', ['-i', `PATH=${BASE_ENV['PATH']}`, join(alone, 'loopback')]);
    t.equal(about.code, 1, 'outside a CNI call too');
    t.equal(about.stdout, '', 'nothing on stdout outside a CNI call');
    t.match(about.stderr, `cannot run ${join(alone, 'cni-ts')}`);
    // beside the binary, the same link runs it
    linkSync(BINARY, join(alone, 'cni-ts'));
    const runs = await tryRun('env', ['-i', `PATH=${BASE_ENV['PATH']}`, 'CNI_COMMAND=', join(alone, 'loopback')]);
    t.equal(runs.code, 0, runs.stderr);
    t.match(runs.stderr, /^CNI loopback plugin \(cni-ts/);
  });

  t.test("a path longer than the starter's buffer is an error, never a cut path run", async (t) => {
    // A starter built with a 64-byte buffer for its own path, run from a longer one. Cut at 63
    // bytes, the path's last '/' is `base`'s: what lies there as cni-ts must not run.
    const work = tempDir(t, `cnits-${tag}-cut-`);
    const small = join(work, 'starter-64');
    compileStarter([{ program: 'none', answer: '{}\n' }], join(work, 'src'), small, ['SELF_PATH_MAX=64']);
    const base = tempDir(t, `cnits-${tag}-long-`);
    const marker = join(work, 'decoy-ran');
    writeFileSync(join(base, 'cni-ts'), `#!/bin/sh\necho ran > ${marker}\n`, { mode: 0o755 });
    const deep = join(base, 'a'.repeat(80));
    mkdirSync(deep);
    linkSync(small, join(deep, 'loopback'));
    const r = await execPlugin('loopback', { command: 'ADD', containerId: 'x', netns: '/proc/self/ns/net', ifname: 'lo' }, '{}', deep);
    t.equal(r.code, 1);
    t.match(r.json, { code: 999, msg: 'cannot read /proc/self/exe: File name too long' }, r.stdout + r.stderr);
    t.notOk(existsSync(marker), 'the file at the cut path did not run');
    // The control: the same starter from a path that fits runs the binary beside it.
    const short = tempDir(t, `cnits-${tag}-`);
    linkSync(small, join(short, 'loopback'));
    linkSync(BINARY, join(short, 'cni-ts'));
    const about = await tryRun('env', ['-i', `PATH=${BASE_ENV['PATH']}`, 'CNI_COMMAND=', join(short, 'loopback')]);
    t.equal(about.code, 0, about.stderr);
    t.match(about.stderr, /^CNI loopback plugin \(cni-ts/);
  });

  t.test("the runtime's own settings in the caller's environment do not reach it", { skip: needsRoot }, async (t) => {
    const work = tempDir(t, `cnits-${tag}-env-`);
    const marker = join(work, 'probe-ran');
    const probe = join(work, 'probe.cjs');
    writeFileSync(probe, `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\n`);
    const ns = await makeNetns(t, 'env');
    const conf = { cniVersion: '1.1.0', name: 'env', type: 'loopback' };
    const add = (extra: Record<string, string>) =>
      execPlugin('loopback', { command: 'ADD', containerId: 'env', netns: ns.path, ifname: 'lo', baseEnv: { ...BASE_ENV, ...extra } }, conf, BIN);
    for (const [what, extra] of [
      ['BUN_OPTIONS=--preload', { BUN_OPTIONS: `--preload=${probe}` }],
      ['BUN_INSPECT_PRELOAD', { BUN_INSPECT_PRELOAD: probe }],
      ['NODE_OPTIONS=--require', { NODE_OPTIONS: `--require ${probe}` }],
      // Bun's CLI would answer on stdout with its usage, not a CNI result.
      ['BUN_BE_BUN=1', { BUN_BE_BUN: '1' }],
      // The dynamic loader's: a library to preload, and a trace of its work on stderr.
      ['LD_PRELOAD, LD_DEBUG', { LD_PRELOAD: join(work, 'none.so'), LD_DEBUG: 'libs' }],
    ] as const) {
      const r = await add(extra);
      t.equal(r.code, 0, `${what}: the ADD works ${r.stdout}${r.stderr}`);
      t.match(r.json, { interfaces: [{ name: 'lo' }] }, `${what}: the plugin answered`);
      t.equal(r.stderr, '', `${what}: nothing on stderr`);
      t.notOk(existsSync(marker), `${what}: the probe did not run`);
      rmSync(marker, { force: true });
    }
    // What the binary is started with: the caller's environment without what its runtime,
    // loader and C library act on (runtime/starter-env.ts), everything else as it was.
    const caller: Record<string, string> = {
      ...BASE_ENV,
      HOME: '/root',
      TMPDIR: '/tmp',
      DBUS_SYSTEM_BUS_ADDRESS: 'unix:path=/run/dbus/system_bus_socket',
      CNI_TIMING: '0',
      CNI_TS_NATIVE_DIR: join(work, 'native'),
      BUN_JSC_useJIT: '1',
      BUN_CONFIG_VERBOSE_FETCH: '1',
      JSC_SIGNAL_FOR_GC: '10',
      NODE_EXTRA_CA_CERTS: probe,
      NODE_PATH: work,
      MIMALLOC_VERBOSE: '1',
      LD_LIBRARY_PATH: work,
      GLIBC_TUNABLES: 'glibc.malloc.check=3',
      MALLOC_ARENA_MAX: '1',
      GCONV_PATH: work,
      LOCPATH: work,
    };
    const { lines } = await straced({
      file: join(BIN, 'loopback'),
      config: conf,
      env: pluginEnv({ command: 'ADD', containerId: 'env', netns: '/proc/self/ns/net', ifname: 'lo', cniPath: [BIN], baseEnv: caller }),
      trace: join(work, 'execve.trace'),
      events: 'execve',
      verbose: true,
    });
    const exec = lines.find((l) => l.includes(`execve("${join(BIN, 'cni-ts')}"`));
    if (exec === undefined) throw new Error(`the starter did not run the binary:\n${lines.join('\n')}`);
    const passed = Object.fromEntries([...exec.matchAll(/"([A-Za-z_][A-Za-z0-9_]*)=([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const kept = Object.keys(caller).filter((k) => !droppedByStarter(k));
    t.same(
      kept.sort(),
      ['CNI_TIMING', 'CNI_TS_NATIVE_DIR', 'DBUS_SYSTEM_BUS_ADDRESS', 'HOME', 'PATH', 'TMPDIR'],
      'the rule keeps what a plugin and what it runs may need',
    );
    for (const k of kept) t.equal(passed[k], caller[k], `${k} passed on`);
    for (const k of ['CNI_COMMAND', 'CNI_CONTAINERID', 'CNI_NETNS', 'CNI_IFNAME', 'CNI_PATH']) t.ok(passed[k], `${k} passed on`);
    for (const k of Object.keys(caller).filter((k) => droppedByStarter(k) && !(k in starterEnv('loopback', 'ADD')))) {
      t.notOk(k in passed, `${k} dropped`);
    }
    t.equal(passed['BUN_JSC_useJIT'], '0', "the starter's own setting, not the caller's");
  });

  t.test('the starter turns the JIT off for calls of fixed work, and only for those', async (t) => {
    const work = tempDir(t, `cnits-${tag}-jit-`);
    // What the binary was started with (its execve's environment) and whether its VM reserved
    // memory for JIT code (JSC names that mapping), traced with strace. Each call is refused at
    // the own-netns check (code 8) before a handler runs: only the start matters here.
    const started = async (program: string, command: Verb): Promise<{ env: string[]; jitMemory: boolean }> => {
      const { run: r, lines } = await straced({
        file: join(BIN, program),
        config: { cniVersion: '1.1.0', name: 'jit', type: program },
        env: pluginEnv({ command, containerId: 'jit', netns: '/proc/self/ns/net', ifname: 'eth0', cniPath: [BIN], baseEnv: BASE_ENV }),
        trace: join(work, `${program}-${command}.trace`),
        events: 'execve,prctl',
        verbose: true,
      });
      // GC without a list of valid attachments keeps everything: a successful no-op.
      if (command === 'GC') t.equal(r.code, 0, `${program} GC: ${r.stdout}`);
      else t.match(JSON.parse(r.stdout), { code: 8 }, `${program} ${command}: refused in the test's own netns`);
      const exec = lines.find((l) => l.includes(`execve("${join(BIN, 'cni-ts')}"`));
      if (exec === undefined) throw new Error(`${program} ${command}: the starter did not run the binary:\n${lines.join('\n')}`);
      return { env: [...exec.matchAll(/"(BUN_JSC_[A-Za-z]+=[^"]*)"/g)].map((m) => m[1] ?? ''), jitMemory: lines.some((l) => l.includes('"JSJITCode"')) };
    };
    // runtime/starter-env.ts, which the build compiles into the starter and the bench reads.
    const asBenchAssumes = (program: string, command: Verb) =>
      Object.entries(starterEnv(program, command))
        .map(([k, v]) => `${k}=${v}`)
        .sort();
    // Every plugin's ADD, and the verbs whose work differs from ADD's where it matters, against
    // what plugins/registry.ts says (`noJit`: ADD, CHECK, DEL and STATUS; never GC, which walks
    // every attachment).
    const calls: (readonly [PluginName, Verb])[] = [
      ...PLUGIN_NAMES.map((p) => [p, 'ADD'] as const),
      ['tuning', 'DEL'],
      ['bandwidth', 'DEL'],
      ['bandwidth', 'CHECK'],
      ['portmap', 'DEL'],
      ['bandwidth', 'GC'],
    ];
    const off = calls.filter(([p, v]) => pluginEntry(p).noJit === true && v !== 'GC');
    t.ok(off.length > 0 && off.length < calls.length, 'both kinds of call are covered');
    for (const [program, command] of calls) {
      const s = await started(program, command);
      if (off.some(([p, v]) => p === program && v === command)) {
        t.same(s.env.sort(), ['BUN_JSC_useJIT=0', 'BUN_JSC_useWarmUpMarkedBlocks=0'], `${program} ${command}: no JIT, no heap warm-up thread`);
        t.equal(s.jitMemory, false, `${program} ${command}: the VM reserved no JIT memory`);
      } else {
        // Work that grows with the node: a ruleset walked, a range scanned, every ifb listed.
        t.same(s.env, ['BUN_JSC_useWarmUpMarkedBlocks=0'], `${program} ${command}: the JIT stays`);
        t.equal(s.jitMemory, true, `${program} ${command}: the VM reserved JIT memory (the control)`);
      }
      t.same(s.env, asBenchAssumes(program, command), `${program} ${command}: what the bench gives the binary as its floor`);
    }
  });

  t.test('it runs the program it is invoked as: hard link, symlink, copy', async (t) => {
    const dir = tempDir(t, `cnits-${tag}-`);
    linkSync(BINARY, join(dir, 'static'));
    symlinkSync(BINARY, join(dir, 'bandwidth'));
    symlinkSync(join(BIN, 'portmap'), join(dir, 'portmap'));
    for (const [file, plugin] of [
      [join(BIN, 'bridge'), 'bridge'],
      [join(BIN, 'host-local'), 'host-local'],
      [join(dir, 'static'), 'static'],
      [join(dir, 'bandwidth'), 'bandwidth'],
      [join(dir, 'portmap'), 'portmap'],
    ] as const) {
      const r = await about(file);
      t.equal(r.code, 0, `${file}: ${r.stderr}`);
      t.match(r.stderr, new RegExp(`^CNI ${plugin} plugin \\(cni-ts`), `${file} runs ${plugin}`);
    }
  });

  t.test('an unknown name prints the list of programs and exits 1', async (t) => {
    const dir = tempDir(t, `cnits-${tag}-`);
    symlinkSync(BINARY, join(dir, 'calico'));
    linkSync(BINARY, join(dir, 'cni'));
    for (const [file, name] of [
      [join(dir, 'cni'), 'cni'],
      [join(dir, 'calico'), 'calico'],
    ] as const) {
      const plain = await tryRun(file, []);
      t.equal(plain.code, 1, `${name} exits 1`);
      t.equal(plain.stdout, '', 'nothing on stdout outside a CNI call');
      t.match(plain.stderr, `"${name}" is not one of this executable's programs`);
      for (const p of PROGRAMS) t.match(plain.stderr, new RegExp(`^  ${p}$`, 'm'), `lists ${p}`);
      // executed by a runtime (CNI_COMMAND set), stdout carries a CNI error object as well
      const asPlugin = await execPlugin(name, { command: 'VERSION' }, '', dir);
      t.equal(asPlugin.code, 1);
      t.match(asPlugin.json, { code: 999, msg: `unknown plugin name "${name}"` });
    }
    // The error object is written as Go's encoder writes every other: <, > and & escaped.
    symlinkSync(BINARY, join(dir, 'x<y&z>'));
    const odd = await execPlugin('x<y&z>', { command: 'VERSION' }, '', dir);
    t.equal(odd.code, 1);
    t.equal(odd.stdout, '{\n    "code": 999,\n    "msg": "unknown plugin name \\"x\\u003cy\\u0026z\\u003e\\""\n}\n', 'Go-style escapes');
  });

  const BRIDGE_CONF = (dataDir: string, bridge: string) => ({
    // 1.0.0: Debian's Go host-local (the exec control below) supports no later version
    cniVersion: '1.0.0',
    name: `${tag}-net`,
    type: 'bridge',
    bridge,
    isGateway: true,
    ipam: { type: 'host-local', dataDir, ranges: [[{ subnet: `10.${form.subnet}.0.0/24` }]] },
  });

  t.test('two runs draw different random veth names: no random state comes from the build', { skip: needsRoot }, async (t) => {
    const node = await makeNetns(t, 'node');
    const pods = await Promise.all([makeNetns(t, 'pod'), makeNetns(t, 'pod')]);
    const conf = BRIDGE_CONF(tempDir(t, `cnits-${tag}-ipam-`), `cni-${tag}0`);
    const names: string[] = [];
    for (const [i, pod] of pods.entries()) {
      const r = await execPlugin('bridge', { command: 'ADD', containerId: `${tag}-${i}`, netns: pod.path, ifname: 'eth0', nodeNetns: node.name }, conf, BIN);
      t.equal(r.code, 0, r.stdout + r.stderr);
      names.push(r.json?.interfaces?.[1]?.name);
    }
    t.match(names, [/^veth[0-9a-f]{8}$/, /^veth[0-9a-f]{8}$/]);
    t.not(names[0], names[1], `two host veths, two names: ${names.join(' ')}`);
  });

  t.test('the environment is read at run time: natives go where this run says', { skip: needsRoot }, async (t) => {
    const ns = await makeNetns(t, 'pod');
    const nativeDir = join(tempDir(t, `cnits-${tag}-state-`), 'native');
    const env = { command: 'ADD' as const, containerId: `${tag}-env`, netns: ns.path, ifname: 'eth0', baseEnv: { ...BASE_ENV, CNI_TS_NATIVE_DIR: nativeDir } };
    const r = await execPlugin('loopback', env, { cniVersion: '1.1.0', name: 'lo', type: 'loopback' }, BIN);
    t.equal(r.code, 0, r.stdout + r.stderr);
    t.ok(statSync(nativeDir).isDirectory(), `${nativeDir} was made`);
  });

  t.test('bridge runs host-local in-process when CNI_PATH holds the binary under that name', { skip: needsRoot }, async (t) => {
    const node = await makeNetns(t, 'node');
    const pod = await makeNetns(t, 'pod');
    const work = tempDir(t, `cnits-${tag}-exec-`);
    // Counted with strace: the execve calls of a file named host-local.
    const hostLocalExecs = async (cniPath: string, id: string): Promise<number> => {
      const { run: r, lines } = await straced({
        file: join(BIN, 'bridge'),
        config: BRIDGE_CONF(join(work, 'ipam'), `cni-${tag}1`),
        env: pluginEnv({ command: 'ADD', containerId: id, netns: pod.path, ifname: `e${id}`, cniPath: [cniPath], baseEnv: BASE_ENV }),
        trace: join(work, `${id}.trace`),
        events: 'execve',
        netns: node.name,
      });
      t.equal(r.code, 0, `${id}: ${r.stdout} ${r.stderr}`);
      t.match(JSON.parse(r.stdout), { ips: [{ address: new RegExp(`^10\\.${form.subnet}\\.0\\.\\d+/24$`) }] }, `${id}: an address from host-local`);
      return lines.filter((l) => /execve\("[^"]*\/host-local"/.test(l) && !/ENOENT/.test(l)).length;
    };
    t.equal(await hostLocalExecs(BIN, 'in1'), 0, `CNI_PATH=dist/${form.dir}/bin (the starter's links): host-local was not executed`);
    const direct = join(work, 'direct');
    mkdirSync(direct);
    linkSync(BINARY, join(direct, 'host-local'));
    t.equal(await hostLocalExecs(direct, 'in2'), 0, 'CNI_PATH holding a hard link of the binary itself: not executed either');
    // positive control: a host-local that is not this binary is executed
    const other = join(work, 'other');
    mkdirSync(other);
    symlinkSync('/usr/lib/cni/host-local', join(other, 'host-local'));
    t.equal(await hostLocalExecs(other, 'ex1'), 1, 'the Go host-local on CNI_PATH: executed');
  });

  // $1: the binary's bin dir; $2: the bundle dir; $3 the node netns; $4 the pod's netns path; $5 the conf.
  // Every `node` on the usual paths is covered with /dev/null, in a mount namespace of this
  // script alone; then node itself, the bundle (the control) and the binary are run.
  const HIDDEN_NODE = `
  set -e
  for n in /usr/bin/node /usr/local/bin/node /bin/node /usr/sbin/node "$NODE_EXEC"; do
    [ -e "$n" ] && mount --bind /dev/null "$n"
  done
  set +e
  export PATH=/usr/sbin:/usr/bin:/sbin:/bin CNI_CONTAINERID=hidden CNI_NETNS="$4" CNI_IFNAME=eth0
  node -e 0 >/dev/null 2>&1; echo "@@node $?"
  CNI_COMMAND=VERSION CNI_PATH="$2" "$2/loopback" >/dev/null 2>&1; echo "@@bundle $?"
  CNI_COMMAND=ADD CNI_PATH="$1" ip netns exec "$3" "$1/bridge" < "$5"; echo "@@add $?"
  CNI_COMMAND=DEL CNI_PATH="$1" ip netns exec "$3" "$1/bridge" < "$5"; echo "@@del $?"
  `;

  t.test(`with every node binary hidden, the ${label} plugins still run (bridge + host-local ADD, DEL)`, { skip: needsRoot }, async (t: Test) => {
    const node = await makeNetns(t, 'node');
    const pod = await makeNetns(t, 'pod');
    const work = tempDir(t, `cnits-${tag}-hidden-`);
    const conf = join(work, 'conf.json');
    writeFileSync(conf, JSON.stringify(BRIDGE_CONF(join(work, 'ipam'), `cni-${tag}2`)));
    const bundleDir = resolve(import.meta.dirname, '..', '..', 'dist', 'bin');
    const r = await tryRun('env', [
      '-i',
      `NODE_EXEC=${process.execPath}`,
      'unshare',
      '-m',
      '--propagation',
      'private',
      'sh',
      '-c',
      HIDDEN_NODE,
      'sh',
      BIN,
      bundleDir,
      node.name,
      pod.path,
      conf,
    ]);
    const status = (what: string) => new RegExp(`@@${what} (\\d+)$`, 'm').exec(r.stdout)?.[1];
    t.not(status('node'), '0', `control: node cannot run there (${r.stdout} ${r.stderr})`);
    t.not(status('bundle'), '0', 'control: neither can the bundle, which needs node');
    t.equal(status('add'), '0', `the ${label} bridge ADD works (${r.stdout} ${r.stderr})`);
    const result = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'), r.stdout.indexOf('@@add')));
    t.match(result, {
      interfaces: [{ name: `cni-${tag}2` }, { name: /^veth/ }, { name: 'eth0', sandbox: pod.path }],
      ips: [{ address: new RegExp(`^10\\.${form.subnet}\\.0\\.`) }],
    });
    t.equal(status('del'), '0', 'and DEL');
  });
}
