import t from 'tap';
import type * as Masq from './masq.ts';
import { resolveMasqBackend } from './masq.ts';

t.test('ipMasqBackend: the two names pass, anything else is a config error', async (t) => {
  t.equal(resolveMasqBackend('iptables'), 'iptables');
  t.equal(resolveMasqBackend('nftables'), 'nftables');
  for (const bad of ['', 'NFTables', 'nft', 'ebtables']) {
    t.throws(() => resolveMasqBackend(bad), { name: 'CniError', code: 7, msg: `unknown ipmasq backend ${JSON.stringify(bad)}` });
  }
});

t.test('unset: iptables where its tools are installed, else nftables if nft is', async (t) => {
  const real = await import('../core/exec.ts');
  const { resolveMasqBackend: fresh } = await t.mockImport<typeof Masq>('./masq.ts', {
    '../core/exec.ts': { ...real, lookPath: (tool: string) => (tool === 'nft' ? '/usr/sbin/nft' : undefined) },
  });
  t.equal(fresh(undefined), 'nftables');
  const { resolveMasqBackend: none } = await t.mockImport<typeof Masq>('./masq.ts', {
    '../core/exec.ts': { ...real, lookPath: () => undefined },
  });
  t.equal(none(undefined), 'iptables', 'neither: iptables, whose setup then names the missing tool');
  const { resolveMasqBackend: both } = await t.mockImport<typeof Masq>('./masq.ts', {
    '../core/exec.ts': { ...real, lookPath: (tool: string) => `/usr/sbin/${tool}` },
  });
  t.equal(both(undefined), 'iptables');
});
