// dnsmasq as the DHCP server of the tests, the bad-input batches and the bench (Debian's
// dnsmasq-base: no system service, nothing but what its command line says).
export interface DnsmasqServe {
  iface: string;
  leaseFile: string;
  /** first and last address handed out */
  start: string;
  end: string;
  /** dnsmasq's syntax; its shortest lease is 2m */
  leaseTime?: string;
}

/** The command line (after `dnsmasq`) of a DHCP-only server on one interface, in the foreground, logging to stderr. */
export function dnsmasqArgs(s: DnsmasqServe): string[] {
  return [
    '--no-daemon',
    '--conf-file=/dev/null',
    '--port=0',
    `--interface=${s.iface}`,
    '--bind-interfaces',
    '--dhcp-authoritative',
    // no ICMP probe of an address before offering it: only our pods live on this lan, and the
    // probe holds back the first OFFER to each client by seconds
    '--no-ping',
    `--dhcp-range=${s.start},${s.end},${s.leaseTime ?? '2m'}`,
    `--dhcp-leasefile=${s.leaseFile}`,
    '--log-facility=-',
  ];
}
