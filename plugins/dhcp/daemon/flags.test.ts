import t from 'tap';
import { backoffDelays } from './backoff.ts';
import { DEFAULT_FLAGS, parseDaemonFlags, parseGoDuration } from './flags.ts';

t.test('Go durations', async (t) => {
  t.equal(parseGoDuration('10s'), 10_000);
  t.equal(parseGoDuration('1m2s'), 62_000);
  t.equal(parseGoDuration('1.5h'), 5_400_000);
  t.equal(parseGoDuration('300ms'), 300);
  t.equal(parseGoDuration('0'), 0);
  for (const bad of ['10', 's', '1x', '', '1s2']) t.throws(() => parseGoDuration(bad), /invalid duration/, bad);
});

t.test('the reference’s flags in every form Go’s flag package takes', async (t) => {
  t.same(parseDaemonFlags([]), DEFAULT_FLAGS, 'the reference’s defaults: 10s, 62s, 208s');
  t.equal(DEFAULT_FLAGS.timeout, 10_000);
  t.equal(DEFAULT_FLAGS.resendmax, 62_000);
  t.equal(DEFAULT_FLAGS.resendtimeout, 208_000);
  const f = parseDaemonFlags([
    '-socketpath',
    '/x/s.sock',
    '--hostprefix=/host',
    '-broadcast',
    '-timeout=2s',
    '--resendmax',
    '5s',
    '-pidfile',
    '/run/d.pid',
    '-statedir=/s',
  ]);
  t.same(f, {
    ...DEFAULT_FLAGS,
    socketpath: '/x/s.sock',
    hostprefix: '/host',
    broadcast: true,
    timeout: 2000,
    resendmax: 5000,
    pidfile: '/run/d.pid',
    statedir: '/s',
  });
  t.equal(parseDaemonFlags(['-broadcast=false']).broadcast, false);
  t.equal(parseDaemonFlags(['-socketpath', '/a', 'extra', '-broadcast']).broadcast, false, 'flags end at the first argument');
});

t.test('mistakes are named as Go names them', async (t) => {
  t.throws(() => parseDaemonFlags(['-nope']), /flag provided but not defined: -nope/);
  t.throws(() => parseDaemonFlags(['-socketpath']), /flag needs an argument: -socketpath/);
  t.throws(() => parseDaemonFlags(['-timeout', 'soon']), /invalid value "soon" for flag -timeout/);
  t.throws(() => parseDaemonFlags(['-broadcast=maybe']), /invalid boolean value/);
});

t.test('retry delays: four of 2 s ± 1 s, then from 4 s doubling up to resendmax', async (t) => {
  const mid = () => 0.5; // no jitter
  const it = backoffDelays(20_000, mid);
  t.same(
    Array.from({ length: 9 }, () => it.next().value),
    [2000, 2000, 2000, 2000, 4000, 8000, 16000, 32000, 32000],
    'doubling stops once past resendmax',
  );
  const low = backoffDelays(62_000, () => 0).next().value;
  const high = backoffDelays(62_000, () => 0.999999).next().value as number;
  t.equal(low, 1000, 'jitter down to -1 s');
  t.ok(high > 2999 && high < 3000, 'and up to +1 s');
});
