// The internal result: always the 1.1.0 shape (https://github.com/containernetworking/cni/blob/spec-v1.1.0/SPEC.md#success). `cniVersion` says which
// version the data came from or is meant as; the output version is chosen when rendering.
export { parseResult } from './result-parse.ts';
export { convertResult, renderResult } from './result-convert.ts';

export interface Interface {
  name: string;
  mac?: string;
  mtu?: number;
  sandbox?: string;
  socketPath?: string;
  pciID?: string;
}

export interface IPConfig {
  /** CIDR keeping the host bits: "10.1.0.5/16" */
  address: string;
  gateway?: string;
  /** index into `interfaces`; 0 is a real index, kept */
  interface?: number;
}

export interface Route {
  dst: string;
  gw?: string;
  mtu?: number;
  advmss?: number;
  priority?: number;
  table?: number;
  scope?: number;
}

export interface DNS {
  nameservers?: string[];
  domain?: string;
  search?: string[];
  options?: string[];
}

export interface Result {
  cniVersion: string;
  interfaces?: Interface[];
  ips?: IPConfig[];
  routes?: Route[];
  dns?: DNS;
}
