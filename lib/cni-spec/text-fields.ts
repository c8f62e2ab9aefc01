// String fields read by a transform, shared by the result schemas and IPAM's. Each transform is
// named (quick-shape.ts), so a config can be read through it without building the schema.
import * as z from 'zod/mini';
import { canonicalCIDR, canonicalIP } from './ip.ts';
import { namedTransform } from './quick-shape.ts';

type Ctx = z.core.ParsePayload<unknown>;

/** A transform's failure: the issue zod reports, and the value it ignores. */
export function failTransform(ctx: Ctx, v: string, message: string): never {
  ctx.issues.push({ code: 'custom', message, input: v });
  return z.NEVER;
}

// Go reads addresses through net.ParseCIDR / net.ParseIP and prints them canonically.
const CIDR = namedTransform('canonical-cidr', (v: string, ctx: Ctx): string => canonicalCIDR(v) ?? failTransform(ctx, v, `invalid CIDR address: ${v}`));
// An empty string is Go's nil IP, i.e. absent.
const IP = namedTransform('canonical-ip', (v: string, ctx: Ctx): string | undefined =>
  v === '' ? undefined : (canonicalIP(v) ?? failTransform(ctx, v, `invalid IP address: ${v}`)),
);

/** A types.IPNet printed canonically. */
export function cidrText() {
  return z.pipe(z.string(), z.transform(CIDR));
}

/** An optional net.IP printed canonically; "" is absent. */
export function ipText() {
  return z.optional(z.pipe(z.string(), z.transform(IP)));
}
