// The CNI spec versions as the spec lists them, written out here rather than taken from
// lib/cni-spec (the code under test): a version dropped there fails the per-version tests
// instead of quietly shrinking them. Each per-version loop also checks that all seven ran.
import type { Test } from 'tap';

export const SPEC_VERSIONS = ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'] as const;

/** 0.1.0 and 0.2.0: results carry ip4/ip6, no interfaces */
export const isPre030 = (v: string): boolean => v === '0.1.0' || v === '0.2.0';
/** 0.3.0 to 0.4.0: each entry of "ips" carries "version" */
export const ipsCarryVersion = (v: string): boolean => v === '0.3.0' || v === '0.3.1' || v === '0.4.0';
/** CHECK exists from 0.4.0 on */
export const hasCheck = (v: string): boolean => v === '0.4.0' || v === '1.0.0' || v === '1.1.0';

/**
 * Closes a per-version loop: registered after it, so it runs after every version's test, and
 * checks that all seven versions reached the end of theirs (each pushes its version to `done`).
 */
export function allVersionsRan(t: Test, done: readonly string[], skip: string | false): void {
  t.test('every spec version ran to the end', { skip }, async (t) => {
    t.equal(done.length, 7, 'seven versions');
    t.same([...done].sort(), [...SPEC_VERSIONS], 'each spec version once');
  });
}
