// host-device: moves an existing node device (by name, MAC, kernel path, PCI address or a device
// plugin's deviceID) into the container, and back on DEL
// (reference: https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/host-device/host-device.go).
import { ALL_VERSIONS, cniMain } from '../../lib/cni-spec/entry.ts';

cniMain({
  about: 'CNI host-device plugin (cni-ts v0.1.0)',
  versions: ALL_VERSIONS,
  add: async (req) => (await import('./add.ts')).cmdAdd(req),
  del: async (req) => (await import('./del.ts')).cmdDel(req),
  check: async (req) => (await import('./check.ts')).cmdCheck(req),
  status: async (req) => (await import('./status.ts')).cmdStatus(req),
  gc: async (req) => (await import('./gc.ts')).cmdGc(req),
});
