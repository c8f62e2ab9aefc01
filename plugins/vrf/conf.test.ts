// vrf's config: the VRF name (required, a valid link name) and an optional uint32 table.
import t from 'tap';
import { testRequest } from '../../lib/cni-spec/test-request.ts';
import { loadConf } from './conf.ts';

t.test('vrfname and table; table defaults to 0 (pick a free one)', async (t) => {
  t.same(loadConf(testRequest('vrf', { vrfname: 'blue', table: 100 })), { vrfName: 'blue', table: 100 });
  t.same(loadConf(testRequest('vrf', { vrfname: 'blue' })), { vrfName: 'blue', table: 0 });
  t.same(loadConf(testRequest('vrf', { vrfname: 'blue', table: 2 ** 32 - 1 })), { vrfName: 'blue', table: 2 ** 32 - 1 });
});

t.test('no vrfname: code 7 with the reference message', async (t) => {
  for (const config of [{}, { vrfname: '' }]) {
    t.throws(() => loadConf(testRequest('vrf', config)), { code: 7, message: 'configuration is expected to have a valid vrf name' }, JSON.stringify(config));
  }
});

t.test('a name no link can have, a table out of uint32, wrong types: code 7', async (t) => {
  for (const config of [{ vrfname: 'a/b' }, { vrfname: 'abcdefghijklmnop' }, { vrfname: 'a b' }]) {
    t.throws(() => loadConf(testRequest('vrf', config)), { code: 7, details: 'vrfname' }, JSON.stringify(config));
  }
  for (const table of [-1, 2 ** 32]) t.throws(() => loadConf(testRequest('vrf', { vrfname: 'v', table })), { code: 7, details: 'table' }, String(table));
  for (const config of [{ vrfname: 5 }, { vrfname: 'v', table: '5' }, { vrfname: 'v', table: 1.5 }]) {
    t.throws(() => loadConf(testRequest('vrf', config)), { code: 7 }, JSON.stringify(config));
  }
});
