// host-device's sysfs decisions on a fake tree laid out as the reference's own tests lay it out
// (fakeFilesystem in plugins/main/host-device/host-device_test.go, v1.9.1): a PCI device bound
// to vfio-pci is DPDK, one bound to a kernel driver is not, a deviceID is a PCI or an auxiliary
// device, and a device's netdev is the first entry of its net/ directory (virtio one level down).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { testRequest } from '../../lib/cni-spec/test-request.ts';
import { loadConf } from './conf.ts';
import { deviceName } from './find-device.ts';
import { firstNetDevice, hasDpdkDriver, netDirOf, resolveDeviceId } from './sysfs.ts';

function fakeSysfs(t: Test, dirs: string[], symlinks: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'cnits-sysfs-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  for (const d of dirs) mkdirSync(join(root, d), { recursive: true });
  for (const [link, target] of Object.entries(symlinks)) symlinkSync(target, join(root, link));
  return root;
}

// The tree's root stands for /sys, so the reference's "sys/bus/…" entries lose their "sys/".
const DPDK = {
  dirs: ['bus/pci/devices/0000:00:00.1', 'bus/pci/drivers/vfio-pci'],
  symlinks: { 'bus/pci/devices/0000:00:00.1/driver': '../../../../bus/pci/drivers/vfio-pci' },
};

t.test('a PCI device bound to a userspace driver is DPDK; one bound to a kernel driver is not', async (t) => {
  for (const driver of ['vfio-pci', 'uio_pci_generic', 'igb_uio']) {
    const root = fakeSysfs(t, ['bus/pci/devices/0000:00:00.1', `bus/pci/drivers/${driver}`], {
      'bus/pci/devices/0000:00:00.1/driver': `../../../../bus/pci/drivers/${driver}`,
    });
    t.equal(hasDpdkDriver(root, '0000:00:00.1'), true, driver);
  }
  const kernel = fakeSysfs(t, ['bus/pci/devices/0000:00:00.2/net/ens5', 'bus/pci/drivers/ixgbe'], {
    'bus/pci/devices/0000:00:00.2/driver': '../../../../bus/pci/drivers/ixgbe',
  });
  t.equal(hasDpdkDriver(kernel, '0000:00:00.2'), false, 'ixgbe: a kernel netdev');
  t.throws(() => hasDpdkDriver(kernel, '0000:00:09.0'), /lstat .*0000:00:09\.0\/driver: no such file or directory/, 'no such device');
});

t.test('runtimeConfig.deviceID: a PCI device, else an auxiliary device, else an error', async (t) => {
  const root = fakeSysfs(t, ['bus/pci/devices/0000:00:00.1', 'bus/auxiliary/devices/mlx5_core.sf.4'], {});
  t.same(resolveDeviceId(root, '0000:00:00.1'), { pciAddr: '0000:00:00.1' });
  t.same(resolveDeviceId(root, 'mlx5_core.sf.4'), { auxDevice: 'mlx5_core.sf.4' });
  t.throws(() => resolveDeviceId(root, '0000:00:00.7'), { message: 'runtime config DeviceID 0000:00:00.7 not found or unsupported' });
  // The reference joins it into a path as it is; a path component only, here.
  t.throws(() => resolveDeviceId(root, '../pci/devices/0000:00:00.1'), /not found or unsupported/, 'no path out of the bus directory');
});

t.test('the netdev of a device: net/ first entry, virtio one level down, the kernel path under /sys/devices only', async (t) => {
  const root = fakeSysfs(
    t,
    [
      'bus/pci/devices/0000:00:00.2/net/ens6',
      'bus/pci/devices/0000:00:00.2/net/ens5',
      'bus/pci/devices/0000:00:03.0/virtio0/net/eth1',
      'bus/pci/devices/0000:00:04.0',
      'devices/pci0000:00/0000:00:05.0/net/enp0s5',
    ],
    {},
  );
  t.equal(firstNetDevice(netDirOf(root, { pciAddr: '0000:00:00.2' })), 'ens5', 'sorted, as Go reads a directory');
  t.equal(firstNetDevice(netDirOf(root, { pciAddr: '0000:00:03.0' })), 'eth1', 'virtio');
  t.throws(() => netDirOf(root, { pciAddr: '0000:00:04.0' }), { message: 'no net directory under pci device 0000:00:04.0' });
  t.equal(firstNetDevice(netDirOf(root, { kernelpath: '/sys/devices/pci0000:00/0000:00:05.0' })), 'enp0s5');
  for (const kernelpath of ['sys/devices/x', '/proc/self', '/sys/devices/../class/net/x']) {
    t.throws(
      () => netDirOf(root, { kernelpath }),
      { message: `kernel device path ${JSON.stringify(kernelpath)} must be absolute and begin with /sys/devices/` },
      kernelpath,
    );
  }
});

t.test('loadConf: deviceID wins over pciBusID; DPDK is decided from the driver; DEL tolerates a vanished device', async (t) => {
  const root = fakeSysfs(t, [...DPDK.dirs, 'bus/pci/devices/0000:00:00.2/net/ens5', 'bus/pci/drivers/ixgbe', 'bus/auxiliary/devices/sf.4/net/sf4'], {
    ...DPDK.symlinks,
    'bus/pci/devices/0000:00:00.2/driver': '../../../../bus/pci/drivers/ixgbe',
  });
  const req = (c: Record<string, unknown>) => testRequest('host-device', c);
  t.match(loadConf(req({ pciBusID: '0000:00:00.1' }), { sysfs: root }), { pciBusID: '0000:00:00.1', dpdkMode: true });
  t.match(loadConf(req({ pciBusID: '0000:00:00.2' }), { sysfs: root }), { dpdkMode: false });
  const byId = loadConf(req({ pciBusID: '0000:00:00.2', runtimeConfig: { deviceID: '0000:00:00.1' } }), { sysfs: root });
  t.match(byId, { pciBusID: '0000:00:00.1', dpdkMode: true }, 'the runtime deviceID replaces pciBusID');
  const aux = loadConf(req({ pciBusID: '0000:00:00.1', runtimeConfig: { deviceID: 'sf.4' } }), { sysfs: root });
  t.match(aux, { pciBusID: '', auxDevice: 'sf.4', dpdkMode: false }, 'an auxiliary deviceID clears pciBusID');
  t.equal(deviceName(aux, root), 'sf4');
  t.equal(deviceName(loadConf(req({ pciBusID: '0000:00:00.2' }), { sysfs: root }), root), 'ens5');
  t.throws(() => loadConf(req({ runtimeConfig: { deviceID: 'nope' } }), { sysfs: root }), {
    code: 7,
    msg: 'runtime config DeviceID nope not found or unsupported',
  });
  t.throws(() => loadConf(req({}), { sysfs: root }), { code: 7, msg: 'specify either "device", "hwaddr", "kernelpath" or "pciBusID"' });
  t.throws(() => loadConf(req({ pciBusID: '0000:00:09.0' }), { sysfs: root }), /^error with host device: lstat /, 'ADD: an unknown PCI address');
  t.match(loadConf(req({ pciBusID: '0000:00:09.0' }), { sysfs: root, forDel: true }), { dpdkMode: false }, 'DEL: taken as a kernel device');
  t.match(loadConf(req({ device: 'eth1', ipam: { type: 'host-local' } })), { device: 'eth1', ipamType: 'host-local', dpdkMode: false });
});
