// Ethernet (EUI-48) addresses as text. Pure.

const COLON = /^[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){5}$/;
const DASH = /^[0-9a-fA-F]{2}(?:-[0-9a-fA-F]{2}){5}$/;
const DOT = /^[0-9a-fA-F]{4}(?:\.[0-9a-fA-F]{4}){2}$/;

/**
 * The 6 bytes of "aa:bb:cc:dd:ee:ff", "aa-bb-cc-dd-ee-ff" or "aabb.ccdd.eeff" (the EUI-48 forms
 * Go's net.ParseMAC reads), or undefined.
 */
export function parseMac(s: string): Buffer | undefined {
  if (!COLON.test(s) && !DASH.test(s) && !DOT.test(s)) return undefined;
  return Buffer.from(s.replace(/[:.-]/g, ''), 'hex');
}

/** Lower-case, colon-separated, as the kernel and `ip` print it; '' for a link without one. */
export function formatMac(bytes: Uint8Array | undefined): string {
  if (!bytes) return '';
  // A plain loop: every link read formats one, and Array.from with padStart cost a fresh Bun
  // process ~0.4 ms the first time (measured).
  let s = '';
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] ?? 0;
    s += (i === 0 ? '' : ':') + HEX[b >> 4] + HEX[b & 15];
  }
  return s;
}

const HEX = '0123456789abcdef';

/** What the kernel accepts as a device address (is_valid_ether_addr): not multicast, not zero. */
export function isUnicastMac(bytes: Uint8Array): boolean {
  return bytes.length === 6 && ((bytes[0] ?? 0) & 1) === 0 && bytes.some((b) => b !== 0);
}
