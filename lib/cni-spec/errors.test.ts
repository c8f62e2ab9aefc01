import t from 'tap';
import { asCniError, CniError, ErrorCode } from './errors.ts';
import { ALL_VERSIONS, compareVersions, isCniVersion } from './versions.ts';

t.test('CniError carries code, msg, details and cause; JSON like Go types.Error', async (t) => {
  const cause = new Error('root');
  const e = new CniError(ErrorCode.InvalidNetworkConfig, 'bad config', 'mtu: too big', { cause });
  t.equal(e.code, 7);
  t.equal(e.msg, 'bad config');
  t.equal(e.details, 'mtu: too big');
  t.equal(e.message, 'bad config; mtu: too big', 'message reads like Go Error()');
  t.equal(e.cause, cause);
  t.ok(e instanceof Error);
  t.same(JSON.parse(JSON.stringify(e)), { code: 7, msg: 'bad config', details: 'mtu: too big' });
  t.same(new CniError(1, 'x').toJSON(), { code: 1, msg: 'x' }, 'no details key when empty');
  t.same(new CniError(1, 'x', '').toJSON(), { code: 1, msg: 'x' }, 'empty details is omitted like omitempty');
  t.notOk('cniVersion' in new CniError(1, 'x').toJSON(), 'no cniVersion, like the reference');
});

t.test('asCniError: passthrough, cause chain, plain errors become 999', async (t) => {
  const typed = new CniError(11, 'try again');
  t.equal(asCniError(typed), typed);
  t.equal(asCniError(new Error('wrapped', { cause: typed })), typed, 'like errors.As, a wrapped CNI error wins');
  const plain = new Error('boom');
  const e = asCniError(plain);
  t.match(e, { code: 999, msg: 'boom' });
  t.equal(e.cause, plain, 'cause kept');
  t.match(asCniError('a string'), { code: 999, msg: 'a string' });
  const loop: Error & { cause?: unknown } = new Error('loop');
  loop.cause = loop;
  t.match(asCniError(loop), { code: 999, msg: 'loop' }, 'a cyclic cause chain terminates');
});

t.test('versions', async (t) => {
  t.same([...ALL_VERSIONS], ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0']);
  t.equal(compareVersions('0.3.1', '0.4.0') < 0, true);
  t.equal(compareVersions('1.1.0', '1.0.0') > 0, true);
  t.equal(compareVersions('1.0', '1.0.0'), 0, 'missing parts are 0');
  t.equal(compareVersions('', '0.1.0'), 0, 'empty is 0.1.0');
  t.equal(compareVersions('0.10.0', '0.9.0') > 0, true, 'numeric, not lexical');
  t.throws(() => compareVersions('1.2.3.4', '1.0.0'), { code: 6, msg: 'invalid version "1.2.3.4": too many parts' });
  t.throws(() => compareVersions('x.1', '1.0.0'), { code: 6, msg: /failed to convert major version part "x"/ });
  t.throws(() => compareVersions('1.y', '1.0.0'), { code: 6, msg: /minor version part "y"/ });
  t.ok(isCniVersion('0.3.1'));
  t.notOk(isCniVersion('0.3.2'));
  t.notOk(isCniVersion(undefined));
});
