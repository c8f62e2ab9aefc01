// What bridge's verbs need from outside the process: the kernel (netns, links, addresses),
// the IPAM delegate and netfilter. Handlers take it as one object so that their order of
// steps, their undo and their failure reporting are unit-testable without root; the real
// one is the default.
import { ipamAdd, ipamCheck, ipamDel } from '../../lib/ipam/index.ts';
import {
  deleteLink,
  getLinkByIndex,
  getLinkByName,
  listAddresses,
  Netns,
  openContainerNetns,
  openContainerNetnsIfExists,
  resolveMasqBackend,
  setLinkUp,
  setupIpMasq,
  setupMacSpoofCheck,
  teardownIpMasq,
  teardownMacSpoofCheck,
  validateContainerIface,
  validateIps,
  validateRoutes,
  waitOperUp,
} from '../../lib/linux/index.ts';
import { ensureBridge } from './bridge-setup.ts';
import { findHostVeth, validateBridge } from './check-links.ts';
import { configureContainer } from './container-setup.ts';
import { settleGateways } from './gateway-ready.ts';
import { setupGateways } from './gateway-setup.ts';
import { configurePort, createPort } from './port-setup.ts';
import { ensureVlanGateway } from './vlan-gateway.ts';

export interface BridgeDeps {
  readonly netns: {
    readonly host: () => Netns;
    readonly container: typeof openContainerNetns;
    readonly containerIfExists: typeof openContainerNetnsIfExists;
  };
  readonly kernel: {
    readonly ensureBridge: typeof ensureBridge;
    readonly createPort: typeof createPort;
    readonly configurePort: typeof configurePort;
    readonly deleteLink: typeof deleteLink;
    readonly configureContainer: typeof configureContainer;
    readonly ensureVlanGateway: typeof ensureVlanGateway;
    readonly setupGateways: typeof setupGateways;
    readonly settleGateways: typeof settleGateways;
    readonly setLinkUp: typeof setLinkUp;
    readonly waitOperUp: typeof waitOperUp;
    readonly getLinkByIndex: typeof getLinkByIndex;
    readonly getLinkByName: typeof getLinkByName;
    readonly listAddresses: typeof listAddresses;
  };
  /** CHECK's reads of the kernel state, each failing with the reference's message. */
  readonly check: {
    readonly validateBridge: typeof validateBridge;
    readonly validateContainerIface: typeof validateContainerIface;
    readonly findHostVeth: typeof findHostVeth;
    readonly validateIps: typeof validateIps;
    readonly validateRoutes: typeof validateRoutes;
  };
  readonly ipam: {
    readonly add: typeof ipamAdd;
    readonly del: typeof ipamDel;
    readonly check: typeof ipamCheck;
  };
  readonly netfilter: {
    readonly resolveMasqBackend: typeof resolveMasqBackend;
    readonly setupIpMasq: typeof setupIpMasq;
    readonly teardownIpMasq: typeof teardownIpMasq;
    readonly setupMacSpoofCheck: typeof setupMacSpoofCheck;
    readonly teardownMacSpoofCheck: typeof teardownMacSpoofCheck;
  };
}

export const realDeps: BridgeDeps = {
  netns: { host: () => Netns.host(), container: openContainerNetns, containerIfExists: openContainerNetnsIfExists },
  kernel: {
    ensureBridge,
    createPort,
    configurePort,
    deleteLink,
    configureContainer,
    ensureVlanGateway,
    setupGateways,
    settleGateways,
    setLinkUp,
    waitOperUp,
    getLinkByIndex,
    getLinkByName,
    listAddresses,
  },
  check: { validateBridge, validateContainerIface, findHostVeth, validateIps, validateRoutes },
  ipam: { add: ipamAdd, del: ipamDel, check: ipamCheck },
  netfilter: { resolveMasqBackend, setupIpMasq, teardownIpMasq, setupMacSpoofCheck, teardownMacSpoofCheck },
};
