import t from 'tap';
import { parseCniArgs } from './args.ts';

const KNOWN = ['IP', 'MAC', 'GATEWAY'] as const;

t.test('LoadArgs semantics', async (t) => {
  t.same(parseCniArgs('', KNOWN), {}, 'empty is nothing');
  t.same(parseCniArgs('IP=10.0.0.5', KNOWN), { IP: '10.0.0.5' });
  t.same(parseCniArgs('IP=10.0.0.5;MAC=c2:11:22:33:44:55', KNOWN), { IP: '10.0.0.5', MAC: 'c2:11:22:33:44:55' });
  t.same(parseCniArgs('IP=1.1.1.1;IP=2.2.2.2', KNOWN), { IP: '2.2.2.2' }, 'the last one wins');
  t.same(parseCniArgs('IP=', KNOWN), { IP: '' }, 'an empty value is a value');
});

t.test('malformed pairs', async (t) => {
  t.throws(() => parseCniArgs('IP', KNOWN), { code: 999, msg: 'ARGS: invalid pair "IP"' });
  t.throws(() => parseCniArgs('IP=a=b', KNOWN), { code: 999, msg: 'ARGS: invalid pair "IP=a=b"' }, 'values with = are refused');
  t.throws(() => parseCniArgs('IP=1.1.1.1;', KNOWN), { code: 999, msg: 'ARGS: invalid pair ""' }, 'a trailing ; is an empty pair');
});

t.test('unknown keys and IgnoreUnknown', async (t) => {
  t.throws(() => parseCniArgs('K8S_POD_NAME=web;FOO=bar', KNOWN), { code: 999, msg: 'ARGS: unknown args ["K8S_POD_NAME=web" "FOO=bar"]' });
  t.throws(() => parseCniArgs('ip=1.1.1.1', KNOWN), { code: 999, msg: /unknown args \["ip=1.1.1.1"\]/ }, 'keys are case-sensitive');
  const k8s = 'IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=web;K8S_POD_INFRA_CONTAINER_ID=abc;IP=10.0.0.7';
  t.same(parseCniArgs(k8s, KNOWN), { IgnoreUnknown: '1', IP: '10.0.0.7' });
  t.same(parseCniArgs('FOO=1;IgnoreUnknown=TRUE', KNOWN), { IgnoreUnknown: 'TRUE' }, 'anywhere in the list, any case');
  t.throws(() => parseCniArgs('FOO=1;IgnoreUnknown=false', KNOWN), { code: 999, msg: /unknown args/ }, 'false is accepted and means false');
  t.same(parseCniArgs('IgnoreUnknown=0;IP=1.2.3.4', KNOWN), { IgnoreUnknown: '0', IP: '1.2.3.4' });
  t.throws(() => parseCniArgs('IgnoreUnknown=Yes', KNOWN), {
    code: 999,
    msg: 'ARGS: error parsing value of pair "IgnoreUnknown=Yes": boolean unmarshal error: invalid input yes',
  });
  t.throws(() => parseCniArgs('ignoreunknown=1;FOO=1', KNOWN), { code: 999, msg: /unknown args \["ignoreunknown=1" "FOO=1"\]/ });
});
