// Whether this kernel can make the link kind a bad-input target needs (Target.onlyWithLink): the
// same probe as e2e/helpers/impl.ts (`ip link add … type <kind>` on a veth in a throwaway netns),
// without loading an implementation. A kernel without it gives the allow-listed reason; the
// kernel lab has every kind.
import { uniqueName } from '../helpers/netns.ts';
import { run, tryRun } from '../../test-support/sh.ts';
import { NO_KERNEL_LINK_KIND } from '../../test-support/skip-reasons.ts';
import type { KernelLinkFeature } from '../../test-support/bad-input/targets.ts';

const ARGS: Record<KernelLinkFeature, string[]> = {
  'kernel-ipvlan': ['link', 'cnitsgl', 'type', 'ipvlan'],
  'kernel-vlan': ['link', 'cnitsgl', 'type', 'vlan', 'id', '5'],
  'kernel-dummy': ['type', 'dummy'],
  'kernel-vrf': ['type', 'vrf', 'table', '100'],
};

/** The reason this kernel lacks `feature`, or undefined when it has it; any other failure throws. */
export async function kernelLacks(feature: KernelLinkFeature): Promise<string | undefined> {
  const node = uniqueName('kgate');
  await run('ip', ['netns', 'add', node]);
  try {
    await run('ip', ['-n', node, 'link', 'add', 'cnitsgl', 'type', 'veth', 'peer', 'name', 'cnitsgm']);
    const made = await tryRun('ip', ['-n', node, 'link', 'add', 'cnitsgp', ...ARGS[feature]]);
    if (made.code === 0) return undefined;
    const said = made.stderr.trim();
    if (!/Unknown device type|Operation not supported/.test(said)) throw new Error(`probing the kernel for ${feature}: ${said}`);
    return `${NO_KERNEL_LINK_KIND}: ${feature.slice('kernel-'.length)}: ip link add … answered "${said}"`;
  } finally {
    await tryRun('ip', ['netns', 'del', node]);
  }
}
