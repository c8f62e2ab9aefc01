// resolv.conf → result DNS (host-local `resolvConf`, reference https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/ipam/host-local/dns.go): nameserver, domain,
// search and options lines; comments (# or ;), blank lines and other keywords skipped.
import { readFileSync } from 'node:fs';
import type { DNS } from '../cni-spec/index.ts';
import { goFsError } from '../linux/go-errno.ts';

export function parseResolvConf(text: string): DNS {
  const dns: DNS = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line[0] === '#' || line[0] === ';') continue;
    const fields = line.split(/\s+/);
    if (fields.length < 2) continue;
    const [key, first, ...rest] = fields as [string, string, ...string[]];
    switch (key) {
      case 'nameserver':
        (dns.nameservers ??= []).push(first);
        break;
      case 'domain':
        dns.domain = first;
        break;
      case 'search':
        (dns.search ??= []).push(first, ...rest);
        break;
      case 'options':
        (dns.options ??= []).push(first, ...rest);
        break;
    }
  }
  return dns;
}

export function readResolvConf(path: string): DNS {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw goFsError(err, 'open', path);
  }
  return parseResolvConf(text);
}
