// CNI_TIMING's accumulation and its stderr line, with a hand-driven clock.
import t from 'tap';
import { runPlugin, type PluginIO, type PluginSpec } from './dispatch.ts';
import { finishTiming, formatTiming, parseTiming, PhaseClock, startTiming, timed, timingRequested } from './timing.ts';

function manualClock(): { now: () => number; at: (ms: number) => void } {
  let ms = 0;
  return { now: () => ms, at: (x) => void (ms = x) };
}

t.test('a phase is the union of its intervals: parallel calls of one phase count once', async (t) => {
  const c = manualClock();
  const clock = new PhaseClock(c.now);
  c.at(10);
  const a = clock.enter('netlink');
  c.at(12);
  const b = clock.enter('netlink'); // overlaps a
  c.at(15);
  a();
  c.at(20);
  b(); // netlink: 10 → 20
  c.at(30);
  const d = clock.enter('netlink');
  c.at(33);
  d(); // + 3
  d(); // ending twice changes nothing
  t.equal(clock.spent('netlink'), 13);
  t.equal(clock.spent('ipam'), 0, 'a phase never entered is 0');
});

t.test('different phases accumulate separately; an open interval counts up to now', async (t) => {
  const c = manualClock();
  const clock = new PhaseClock(c.now);
  const n = clock.enter('netfilter');
  c.at(4);
  const i = clock.enter('ipam');
  c.at(5);
  i();
  t.equal(clock.spent('ipam'), 1);
  t.equal(clock.spent('netfilter'), 5, 'still open');
  c.at(9);
  n();
  t.equal(clock.spent('netfilter'), 9);
});

t.test('the line: fixed field order, ms with two decimals, other = total − startup − phases', async (t) => {
  const line = formatTiming({
    plugin: 'bridge',
    verb: 'ADD',
    startup: 40,
    phases: { config: 1, netlink: 6.5, sysctl: 0.25, netfilter: 17, ipam: 1.2, wait: 0 },
    total: 70,
  });
  t.equal(
    line,
    'cni-timing plugin=bridge verb=ADD startup=40.00 config=1.00 netlink=6.50 sysctl=0.25 netfilter=17.00 ipam=1.20 wait=0.00 other=4.05 total=70.00\n',
  );
  t.same(parseTiming(line.trimEnd()), {
    plugin: 'bridge',
    verb: 'ADD',
    ms: { startup: 40, config: 1, netlink: 6.5, sysctl: 0.25, netfilter: 17, ipam: 1.2, wait: 0, other: 4.05, total: 70 },
  });
  t.equal(parseTiming('some other stderr line'), undefined);
});

t.test('phases that overlap (run in parallel) can sum past the total: other is then 0, never negative', async (t) => {
  const line = formatTiming({
    plugin: 'p',
    verb: 'DEL',
    startup: 10,
    phases: { config: 0, netlink: 20, sysctl: 0, netfilter: 20, ipam: 0, wait: 0 },
    total: 35,
  });
  t.match(line, / other=0\.00 total=35\.00\n$/);
});

t.test('CNI_TIMING: set and not "0" turns it on', async (t) => {
  t.equal(timingRequested({ CNI_TIMING: '1' }), true);
  t.equal(timingRequested({ CNI_TIMING: 'yes' }), true);
  t.equal(timingRequested({ CNI_TIMING: '0' }), false);
  t.equal(timingRequested({ CNI_TIMING: '' }), false);
  t.equal(timingRequested({}), false);
});

t.test('off: timed() is just the call, and there is no line', async (t) => {
  t.equal(
    timed('netlink', () => 7),
    7,
  );
  t.equal(finishTiming('x', 'ADD'), undefined);
});

t.test('on: timed() measures sync and async work, errors included, and passes results through', async (t) => {
  const c = manualClock();
  c.at(25);
  startTiming(c.now);
  t.equal(
    timed('config', () => (c.at(27), 'conf')),
    'conf',
  );
  await t.rejects(
    timed('netlink', async () => {
      c.at(30);
      await Promise.resolve();
      c.at(33);
      throw new Error('EEXIST');
    }),
    { message: 'EEXIST' },
  );
  t.throws(
    () =>
      timed(
        'sysctl',
        () => (
          c.at(34),
          (() => {
            throw new Error('EACCES');
          })()
        ),
      ),
    { message: 'EACCES' },
  );
  c.at(50);
  const line = finishTiming('bridge', 'ADD', c.now);
  // config 25→27, netlink 27→33 (entered at 27, before its body moved the clock), sysctl 33→34
  t.equal(
    line,
    'cni-timing plugin=bridge verb=ADD startup=25.00 config=2.00 netlink=6.00 sysctl=1.00 netfilter=0.00 ipam=0.00 wait=0.00 other=16.00 total=50.00\n',
  );
  t.equal(finishTiming('bridge', 'ADD'), undefined, 'finishing turns it off');
});

function io(env: Record<string, string>, stdin: string): { io: PluginIO; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { program: 'fake', env, readStdin: async () => Buffer.from(stdin), stdout: (s) => out.push(s), stderr: (s) => err.push(s) },
    out,
    err,
  };
}

const spec: PluginSpec = {
  about: 'fake',
  versions: ['1.0.0'],
  add: async () => ({ cniVersion: '1.0.0', ips: [] }),
  del: async () => {
    throw new Error('boom');
  },
};
const ENV = { CNI_CONTAINERID: 'c1', CNI_NETNS: '/proc/1/ns/net', CNI_IFNAME: 'eth0', CNI_PATH: '/x', CNI_NETNS_OVERRIDE: '1' };
const CONF = JSON.stringify({ cniVersion: '1.0.0', name: 'n', type: 'fake' });

t.test('the dispatcher: with CNI_TIMING the line goes to stderr after the result; stdout is the same as without', async (t) => {
  const on = io({ ...ENV, CNI_COMMAND: 'ADD', CNI_TIMING: '1' }, CONF);
  const off = io({ ...ENV, CNI_COMMAND: 'ADD' }, CONF);
  t.equal(await runPlugin(spec, on.io), 0);
  t.equal(await runPlugin(spec, off.io), 0);
  t.same(on.out, off.out, 'stdout untouched');
  t.equal(off.err.length, 0, 'off: nothing on stderr');
  t.equal(on.err.length, 1);
  t.match(on.err[0], /^cni-timing plugin=fake verb=ADD startup=\d+\.\d\d config=\d+\.\d\d .* total=\d+\.\d\d\n$/);
});

t.test('the dispatcher: a failing verb still reports its timing, and its error object is unchanged', async (t) => {
  const on = io({ ...ENV, CNI_COMMAND: 'DEL', CNI_TIMING: '1' }, CONF);
  const off = io({ ...ENV, CNI_COMMAND: 'DEL' }, CONF);
  t.equal(await runPlugin(spec, on.io), 1);
  t.equal(await runPlugin(spec, off.io), 1);
  t.same(on.out, off.out);
  t.match(on.out[0], /"msg": "boom"/);
  t.match(on.err[0], /^cni-timing plugin=fake verb=DEL /);
});
