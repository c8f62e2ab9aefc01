// zod/mini schemas of the result JSON per reference struct family (types/020, 040, 100).
// Built on first use only: most plugin runs never parse a result.
import * as z from 'zod/mini';
import type { ResultFamily } from './versions.ts';
import { namedSchema, type NamedSchema } from './named-schema.ts';
import { cidrText, ipText } from './text-fields.ts';

// One instance of each leaf, shared by every field of its kind (a zod schema is immutable), and
// only the family a process reads is built: building zod schemas is a start-up cost (profiled).
let leaves: ReturnType<typeof buildLeaves> | undefined;
function buildLeaves() {
  const str = z.optional(z.string());
  const int = z.optional(z.int());
  const strs = z.optional(z.array(z.string()));
  const cidrField = cidrText();
  const ipField = ipText();
  // types.Route is shared by every family, so the 1.1 attributes exist in all of them.
  const route = z.object({ dst: cidrField, gw: ipField, mtu: int, advmss: int, priority: int, table: int, scope: int });
  const dns = z.optional(z.object({ nameservers: strs, domain: str, search: strs, options: strs }));
  return { str, int, cidr: cidrField, ip: ipField, routes: z.optional(z.array(route)), dns };
}

const families = {
  '020': ({ cidr, ip, routes, dns }: Leaves) => {
    const ipConfig = z.optional(z.object({ ip: cidr, gateway: ip, routes }));
    return z.object({ cniVersion: z.string(), ip4: ipConfig, ip6: ipConfig, dns });
  },
  '040': ({ str, int, cidr, ip, routes, dns }: Leaves) =>
    z.object({
      cniVersion: z.string(),
      interfaces: z.optional(z.array(z.object({ name: str, mac: str, sandbox: str }))),
      ips: z.optional(z.array(z.object({ version: str, interface: int, address: cidr, gateway: ip }))),
      routes,
      dns,
    }),
  '100': ({ str, int, cidr, ip, routes, dns }: Leaves) =>
    z.object({
      cniVersion: z.string(),
      interfaces: z.optional(z.array(z.object({ name: str, mac: str, mtu: int, sandbox: str, socketPath: str, pciID: str }))),
      ips: z.optional(z.array(z.object({ interface: int, address: cidr, gateway: ip }))),
      routes,
      dns,
    }),
} satisfies Record<ResultFamily, (l: Leaves) => z.core.$ZodType>;

type Leaves = ReturnType<typeof buildLeaves>;
type Schemas = { [F in ResultFamily]: ReturnType<(typeof families)[F]> };
const leavesOnce = () => (leaves ??= buildLeaves());
const named = {
  '020': namedSchema('result-020', () => families['020'](leavesOnce())),
  '040': namedSchema('result-040', () => families['040'](leavesOnce())),
  '100': namedSchema('result-100', () => families['100'](leavesOnce())),
} satisfies { [F in ResultFamily]: NamedSchema<Schemas[F]> };

/** A family's schema by name: quickRead reads a result without building the schema when it can. */
export function namedResultSchema<F extends ResultFamily>(family: F): NamedSchema<Schemas[F]> {
  return named[family] as NamedSchema<Schemas[F]>;
}

export function resultSchema<F extends ResultFamily>(family: F): Schemas[F] {
  return named[family]() as Schemas[F];
}

export type Raw020 = z.output<Schemas['020']>;
export type Raw040 = z.output<Schemas['040']>;
export type Raw100 = z.output<Schemas['100']>;
