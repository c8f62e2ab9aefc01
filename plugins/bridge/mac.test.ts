import t from 'tap';
import { pickMac } from './mac.ts';

t.test('priority and normalisation', async (t) => {
  t.same(pickMac({}), {});
  t.same(pickMac({ runtimeConfig: '', argsCni: '', cniArgs: '' }), {}, 'empty strings are unset');
  t.same(pickMac({ runtimeConfig: '0A:00:00:00:00:01', argsCni: '0a:00:00:00:00:02', cniArgs: '0a:00:00:00:00:03' }), { mac: '0a:00:00:00:00:01' });
  t.same(pickMac({ argsCni: '0a-00-00-00-00-02', cniArgs: '0a:00:00:00:00:03' }), { mac: '0a:00:00:00:00:02' });
  t.same(pickMac({ cniArgs: '0a00.0000.0003' }), { mac: '0a:00:00:00:00:03' });
});

t.test('only the chosen one is validated', async (t) => {
  t.same(pickMac({ runtimeConfig: '0a:00:00:00:00:01', argsCni: 'junk' }), { mac: '0a:00:00:00:00:01' });
  t.same(pickMac({ argsCni: 'junk' }), { field: 'args.cni.mac', msg: 'invalid MAC address "junk"' });
  t.same(pickMac({ runtimeConfig: 'ff:ff:ff:ff:ff:ff' }), { field: 'runtimeConfig.mac', msg: 'MAC address "ff:ff:ff:ff:ff:ff" is not a unicast address' });
});
