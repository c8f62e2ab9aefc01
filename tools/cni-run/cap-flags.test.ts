import t from 'tap';
import { capabilityArgs, parseBandwidth, parseCniArgs, parseIps, parseMac, parsePort, RUNTIME_DEFAULT_BURST } from './cap-flags.ts';
import { parseBitRate, parseQuantity } from './quantity.ts';

t.test('Kubernetes quantities: decimal and binary suffixes, exponents, rounding up', async (t) => {
  // Values as resource.MustParse(x).Value() gives them.
  const cases: [string, bigint][] = [
    ['10M', 10_000_000n],
    ['1k', 1000n],
    ['1Ki', 1024n],
    ['1.5M', 1_500_000n],
    ['1Gi', 1_073_741_824n],
    ['100', 100n],
    ['1e6', 1_000_000n],
    ['1E3', 1000n],
    ['.5k', 500n],
    ['1500m', 2n],
    ['1m', 1n],
    ['0.1', 1n],
    ['2P', 2_000_000_000_000_000n],
  ];
  for (const [text, want] of cases) t.equal(parseQuantity(text), want, text);
  for (const bad of ['', 'M', '10MB', '10 M', '1,5M', 'ten', '1.2.3']) t.throws(() => parseQuantity(bad), /invalid quantity/, JSON.stringify(bad));
});

t.test('bit rates within the bounds the kubelet accepts', async (t) => {
  t.equal(parseBitRate('1k'), 1000);
  t.equal(parseBitRate('1P'), 1e15);
  t.throws(() => parseBitRate('999'), /unreasonably small \(< 1kbit\)/);
  t.throws(() => parseBitRate('2P'), /unreasonably large \(> 1Pbit\)/);
  t.throws(() => parseBitRate('-10M'), /unreasonably small/);
});

t.test('--port HOST:CONTAINER[/proto][@hostIP]', async (t) => {
  t.same(parsePort('8080:80'), { hostPort: 8080, containerPort: 80, protocol: 'tcp' });
  t.same(parsePort('5353:53/UDP'), { hostPort: 5353, containerPort: 53, protocol: 'udp' });
  t.same(parsePort('9000:9000/sctp@127.0.0.1'), { hostPort: 9000, containerPort: 9000, protocol: 'sctp', hostIP: '127.0.0.1' });
  t.same(parsePort('8443:443@[::1]'), { hostPort: 8443, containerPort: 443, protocol: 'tcp', hostIP: '::1' });
  t.same(parsePort('8443:443/tcp@2001:DB8::1'), { hostPort: 8443, containerPort: 443, protocol: 'tcp', hostIP: '2001:db8::1' });
  const bad: [string, RegExp][] = [
    ['8080', /expected HOST:CONTAINER/],
    ['0:80', /host port 0 is not between 1 and 65535/],
    ['80:70000', /container port 70000 is not between 1 and 65535/],
    ['80:80/icmp', /protocol icmp is not tcp, udp or sctp/],
    ['80:80@10.0.0', /10\.0\.0 is not an IP address/],
  ];
  // UsageError: the CLI exits with the usage status for these.
  for (const [spec, msg] of bad) t.throws(() => parsePort(spec), { name: 'UsageError', message: msg }, spec);
});

t.test('--bandwidth: bits/s rates; without a burst, the burst containerd passes', async (t) => {
  t.same(parseBandwidth('in=10M,out=10M'), {
    ingressRate: 10_000_000,
    ingressBurst: RUNTIME_DEFAULT_BURST,
    egressRate: 10_000_000,
    egressBurst: RUNTIME_DEFAULT_BURST,
  });
  t.equal(RUNTIME_DEFAULT_BURST, 2 ** 32 - 1, "containerd's math.MaxUint32");
  t.same(parseBandwidth('out=1Mi'), { egressRate: 1_048_576, egressBurst: RUNTIME_DEFAULT_BURST });
  t.same(parseBandwidth('in=100k,inburst=64k'), { ingressRate: 100_000, ingressBurst: 64_000 });
  t.throws(() => parseBandwidth('in=10M,in=5M'), /in given twice/);
  t.throws(() => parseBandwidth('inburst=1M'), /inburst needs in/);
  t.throws(() => parseBandwidth('up=10M'), /expected in=RATE,out=RATE/);
  t.throws(() => parseBandwidth('in=10'), /in: rate "10" is unreasonably small/);
});

t.test('--ips, --mac, --args', async (t) => {
  t.same(parseIps('10.244.1.9/24,fd00::9/64'), ['10.244.1.9/24', 'fd00::9/64']);
  t.same(parseIps('10.244.1.9'), ['10.244.1.9']);
  t.throws(() => parseIps('10.244.1.300/24'), /is not an IP address or CIDR/);
  t.equal(parseMac('02:42:AC:11:00:02'), '02:42:ac:11:00:02');
  t.throws(() => parseMac('02-42-ac-11-00-02'), /six hex pairs/);
  t.same(parseCniArgs('IgnoreUnknown=1;K8S_POD_NAME=web'), [
    ['IgnoreUnknown', '1'],
    ['K8S_POD_NAME', 'web'],
  ]);
  t.same(parseCniArgs('A=b=c'), [['A', 'b=c']], 'a value may hold "="');
  t.throws(() => parseCniArgs('A='), /invalid CNI_ARGS pair "A="/);
  t.throws(() => parseCniArgs('=b'), /invalid CNI_ARGS pair/);
});

t.test('capability args: --cap-args plus flags, each key from one place', async (t) => {
  const { args, sources } = capabilityArgs({ capArgs: '{"dns":{"servers":["10.96.0.10"]}}', port: ['8080:80'], bandwidth: 'in=1M', mac: '02:00:00:00:00:01' });
  t.same(args, {
    dns: { servers: ['10.96.0.10'] },
    portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }],
    bandwidth: { ingressRate: 1_000_000, ingressBurst: RUNTIME_DEFAULT_BURST },
    mac: '02:00:00:00:00:01',
  });
  t.same(sources, { dns: '--cap-args', portMappings: '--port', bandwidth: '--bandwidth', mac: '--mac' });
  t.throws(() => capabilityArgs({ capArgs: '{"portMappings":[]}', port: ['1:1'] }), /--port and --cap-args both set the portMappings capability/);
  t.throws(() => capabilityArgs({ capArgs: '[1]' }), /expected a JSON object/);
  t.throws(() => capabilityArgs({ capArgs: '{' }), /--cap-args: not JSON/);
  t.same(capabilityArgs({}).args, {}, 'no flags, no capability args');
});

t.test("capability args from CAP_ARGS (cnitool's variable), under the command line", async (t) => {
  const env = '{"portMappings":[{"hostPort":8080,"containerPort":80,"protocol":"tcp"}],"mac":"02:00:00:00:00:09"}';
  t.same(capabilityArgs({}, env), {
    args: { portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }], mac: '02:00:00:00:00:09' },
    sources: { portMappings: 'CAP_ARGS', mac: 'CAP_ARGS' },
  });
  const both = capabilityArgs({ port: ['9090:90'], capArgs: '{"ips":["10.0.0.9/24"]}' }, env);
  t.same(
    both.args,
    { ips: ['10.0.0.9/24'], portMappings: [{ hostPort: 9090, containerPort: 90, protocol: 'tcp' }], mac: '02:00:00:00:00:09' },
    "a key the command line sets replaces the environment's; the others stay",
  );
  t.same(both.sources, { ips: '--cap-args', portMappings: '--port', mac: 'CAP_ARGS' });
  t.same(capabilityArgs({}, '').args, {}, 'empty: not read, as cnitool');
  t.same(capabilityArgs({}, 'null').args, {}, 'null: no capability args, as Go reads it');
  t.throws(() => capabilityArgs({}, '{'), /CAP_ARGS \(environment\): not JSON/);
  t.throws(() => capabilityArgs({}, '[1]'), /CAP_ARGS \(environment\): expected a JSON object/);
  t.throws(() => parseCniArgs('IP', 'CNI_ARGS (environment)'), /^CNI_ARGS \(environment\): invalid CNI_ARGS pair "IP"/);
});
